import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Member } from '../members/member.types.ts';
import { SecretBox } from '../shared/secret-box.ts';
import type { Team } from '../teams/team.types.ts';
import { defaultAccountPolicy } from './account-policy.ts';
import { issuerProblem, saveSsoSettings } from './sso-settings.service.ts';
import { finishSsoSignIn, openPending, sealPending, ssoSignInMaxMs, type SsoPending } from './sso-sign-in.service.ts';
import { OidcError, type OidcClient, type OidcIdentity, type SsoStore, type TeamSso } from './sso.types.ts';

const box = new SecretBox(randomBytes(32));
const team: Team = {
  id: 1,
  token: 't',
  name: 'acme',
  plan: 'enterprise' as Team['plan'],
  verificationCode: 'v',
  created: new Date(0),
};

function member(id: number, email: string, authentication: Member['authentication']): Member {
  return {
    id,
    teamId: 1,
    userToken: `u${id}`,
    email,
    firstName: '',
    lastName: '',
    role: 'Editor',
    state: 'active',
    authentication,
    created: new Date(0),
    lastLogin: null,
  };
}

/** A store holding one team, its members and (optionally) its provider; sessions are counted. */
function fakeStore(members: Member[], sso?: TeamSso) {
  const sessions: number[] = [];
  let saved = sso;
  const store = {
    teams: { findById: async (id: number) => (id === team.id ? team : undefined) },
    members: {
      findByEmails: async (_team: number, emails: string[]) => members.filter((m) => emails.includes(m.email)),
    },
    teamSso: {
      find: async () => saved,
      save: async (value: TeamSso) => void (saved = value),
      remove: async () => true,
    },
    accounts: {
      insertSession: async (s: { memberId: number }) => {
        sessions.push(s.memberId);
        return { id: sessions.length, ...s };
      },
      recordLogin: async () => undefined,
      failures: async () => 0,
      addFailure: async () => undefined,
    },
  };
  return { store: store as unknown as SsoStore, sessions, saved: () => saved };
}

/** An OpenID client that answers one identity, or throws one failure. */
function fakeOidc(outcome: OidcIdentity | OidcError): OidcClient {
  return {
    checkProvider: async () => {
      if (outcome instanceof OidcError) throw outcome;
    },
    authorizationUrl: async () => new URL('https://idp.example/auth'),
    completeSignIn: async () => {
      if (outcome instanceof OidcError) throw outcome;
      return outcome;
    },
  };
}

const provider: TeamSso = {
  teamId: 1,
  issuer: 'https://idp.example',
  clientId: 'console',
  clientSecretSealed: box.encrypt('secret'),
  updated: new Date(0),
};

const now = new Date('2026-11-29T00:00:00Z');
const pending: SsoPending = {
  teamId: 1,
  next: '/',
  started: now.getTime(),
  state: 's',
  nonce: 'n',
  codeVerifier: 'v',
};

async function finish(members: Member[], outcome: OidcIdentity | OidcError) {
  const { store, sessions } = fakeStore(members, provider);
  const result = await finishSsoSignIn(
    { store, box, oidc: fakeOidc(outcome) },
    sealPending(box, pending),
    new URL('http://localhost/signin/sso/callback?code=c&state=s'),
    'http://localhost/signin/sso/callback',
    { address: '127.0.0.1', userAgent: 'test' },
    defaultAccountPolicy,
    now,
  );
  return { result, sessions };
}

describe('console single sign-on: settings and sign-in rules', () => {
  it('accepts https issuers and plain http only on this machine, without user, query or fragment', () => {
    assert.equal(issuerProblem('https://login.example.com/realms/acme'), undefined);
    assert.equal(issuerProblem('http://127.0.0.1:8080'), undefined);
    assert.equal(issuerProblem('http://[::1]:8080/'), undefined);
    assert.equal(issuerProblem('http://localhost/'), undefined);
    assert.match(issuerProblem('')!, /Enter the issuer URL/);
    assert.match(issuerProblem('login.example.com')!, /is not a URL/);
    assert.match(issuerProblem('http://login.example.com/')!, /must start with https/);
    assert.match(issuerProblem('http://127.0.0.1.example.com/')!, /must start with https/);
    assert.match(issuerProblem('javascript:alert(1)')!, /must start with https/);
    assert.match(issuerProblem('https://u:p@login.example.com/')!, /user name, a query or a fragment/);
    assert.match(issuerProblem('https://login.example.com/#x')!, /user name, a query or a fragment/);
    assert.match(issuerProblem(`https://${'a'.repeat(2050)}.example`)!, /too long/);
  });

  it('seals the pending sign-in: tampered, sealed with another key or too old, it opens nothing', () => {
    const sealed = sealPending(box, pending);
    assert.deepEqual(openPending(box, sealed, now), pending);
    assert.equal(openPending(box, `${sealed.slice(0, -2)}AA`, now), undefined);
    assert.equal(openPending(new SecretBox(randomBytes(32)), sealed, now), undefined);
    assert.equal(openPending(box, sealed, new Date(now.getTime() + ssoSignInMaxMs + 1)), undefined);
    assert.equal(openPending(box, '', now), undefined);
  });

  it('saves a provider with its secret sealed, keeps it when left blank, and refuses one that does not answer', async () => {
    const { store, saved } = fakeStore([]);
    const input = { issuer: ' https://idp.example ', clientId: 'console', clientSecret: 'first-secret' };
    const ok = await saveSsoSettings({ store, box, oidc: fakeOidc({} as OidcIdentity) }, team, input, now);
    assert.equal(ok.kind, 'saved');
    assert.equal(saved()!.issuer, 'https://idp.example');
    assert.equal(box.decrypt(saved()!.clientSecretSealed), 'first-secret');
    const kept = await saveSsoSettings(
      { store, box, oidc: fakeOidc({} as OidcIdentity) },
      team,
      { ...input, clientSecret: '' },
      now,
    );
    assert.equal(kept.kind, 'saved');
    assert.equal(box.decrypt(saved()!.clientSecretSealed), 'first-secret');
    const down = await saveSsoSettings(
      { store, box, oidc: fakeOidc(new OidcError('unreachable', 'connection refused')) },
      team,
      input,
      now,
    );
    assert.deepEqual(down, {
      kind: 'invalid',
      field: 'issuer',
      message: 'The identity provider did not answer: connection refused',
    });
  });

  it('opens a session for the verified e-mail of an sso member of the team, whatever its case', async () => {
    const { result, sessions } = await finish([member(7, 'ann@acme.example', 'sso')], {
      subject: 'x',
      email: 'Ann@ACME.example',
      isEmailVerified: true,
    });
    assert.equal(result.kind, 'signed_in');
    assert.deepEqual(sessions, [7]);
  });

  it('refuses, with no session: an unverified e-mail, no e-mail, an unknown member, a password member, a failed check', async () => {
    const members = [member(7, 'ann@acme.example', 'sso'), member(8, 'pat@acme.example', '2fa')];
    const cases: Array<[OidcIdentity | OidcError, RegExp]> = [
      [{ subject: 'x', email: 'ann@acme.example', isEmailVerified: false }, /does not confirm that ann@acme\.example/],
      [{ subject: 'x', email: undefined, isEmailVerified: true }, /did not give an e-mail address/],
      [
        { subject: 'x', email: 'bob@acme.example', isEmailVerified: true },
        /bob@acme\.example is not a member of team acme/,
      ],
      [{ subject: 'x', email: 'pat@acme.example', isEmailVerified: true }, /with a password, not single sign-on/],
      [
        new OidcError('token', 'unexpected JWT "aud" (audience) claim value'),
        /token was refused: unexpected JWT "aud"/,
      ],
      [new OidcError('state', 'unexpected "state" response parameter value'), /does not belong to this sign-in/],
      [new OidcError('provider', 'access_denied'), /did not sign you in: access_denied/],
    ];
    for (const [outcome, message] of cases) {
      const { result, sessions } = await finish(members, outcome);
      assert.equal(result.kind, 'refused');
      assert.match((result as { message: string }).message, message);
      assert.deepEqual(sessions, []);
    }
  });
});
