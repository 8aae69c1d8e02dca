import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { roleAllows } from './account-policy.ts';
import { hashPassword, passwordProblem, verifyPassword } from './password.ts';
import { newTotpSecret, totpCode, totpStep, totpUri } from './totp.ts';

describe('console accounts: passwords, TOTP, roles', () => {
  it('hashes with scrypt and a salt of its own, and verifies in constant time', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    assert.match(a, /^scrypt\$15\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(a, b, 'a new salt each time');
    assert.equal(await verifyPassword('correct horse battery staple', a), true);
    assert.equal(await verifyPassword('correct horse battery stapl', a), false);
    assert.equal(await verifyPassword('x', 'not a hash'), false);
    assert.equal(await verifyPassword('x', 'scrypt$40$8$1$AAAA$AAAA'), false, 'parameters past the limit are refused');
  });

  it('refuses short passwords, the e-mail address, and a few characters repeated', () => {
    assert.match(passwordProblem('short', 'a@b.example')!, /at least 12/);
    assert.match(passwordProblem('Someone@Example.com', 'someone@example.com')!, /e-mail/);
    assert.match(passwordProblem('abababababab', 'a@b.example')!, /repeat/);
    assert.equal(passwordProblem('correct horse battery staple', 'a@b.example'), undefined);
    // Characters count, not UTF-16 units.
    assert.equal(passwordProblem('🔑🔒🔓🗝'.repeat(3), 'a@b.example'), undefined);
    assert.match(passwordProblem('🔑🔒🔓🗝🔑🔒🔓🗝🔑🔒🔓', 'a@b.example')!, /at least 12/);
  });

  it('accepts the code of the current step and one either side, nothing else', () => {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const at = new Date('2026-11-28T12:00:10Z');
    const step = Math.floor(at.getTime() / 30_000);
    assert.equal(totpStep(secret, totpCode(secret, at), at), step);
    assert.equal(totpStep(secret, totpCode(secret, new Date(at.getTime() - 30_000)), at), step - 1);
    assert.equal(totpStep(secret, totpCode(secret, new Date(at.getTime() + 30_000)), at), step + 1);
    assert.equal(totpStep(secret, totpCode(secret, new Date(at.getTime() - 90_000)), at), undefined);
    assert.equal(totpStep(secret, 'abcdef', at), undefined);
    assert.equal(totpStep(secret, `${totpCode(secret, at).slice(0, 3)} ${totpCode(secret, at).slice(3)}`, at), step);
    assert.match(totpUri(secret, 'ann@acme.example'), /^otpauth:\/\/totp\/perimeter:ann%40acme\.example\?.*secret=/);
  });

  it('lets Viewers read, Editors triage and scan, Admins administer', () => {
    assert.deepEqual(
      (['Viewer', 'Editor', 'Admin'] as const).map((role) =>
        (['read', 'triage', 'scan', 'administer'] as const).filter((a) => roleAllows(role, a)),
      ),
      [['read'], ['read', 'triage', 'scan'], ['read', 'triage', 'scan', 'administer']],
    );
  });
});
