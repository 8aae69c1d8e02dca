import type { Kysely, Selectable } from 'kysely';
import type {
  AccountLink,
  AccountLinkPurpose,
  AccountRepository,
  ConsoleSession,
  Credential,
  SessionStage,
} from '../../core/accounts/account.types.ts';
import type { AccountLinksTable, ConsoleSessionsTable, Schema } from '../schema.ts';

const date = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)));

function toSession(row: Selectable<ConsoleSessionsTable>): ConsoleSession {
  return {
    id: Number(row.id),
    memberId: Number(row.member_id),
    teamId: Number(row.team_id),
    stage: row.stage as SessionStage,
    csrfToken: row.csrf_token,
    created: new Date(Number(row.created_at)),
    lastSeen: new Date(Number(row.last_seen_at)),
    expires: new Date(Number(row.expires_at)),
    revoked: date(row.revoked_at),
    address: row.address,
    userAgent: row.user_agent,
  };
}

function toLink(row: Selectable<AccountLinksTable>): AccountLink {
  return {
    id: Number(row.id),
    memberId: Number(row.member_id),
    teamId: Number(row.team_id),
    purpose: row.purpose as AccountLinkPurpose,
    created: new Date(Number(row.created_at)),
    expires: new Date(Number(row.expires_at)),
    used: date(row.used_at),
  };
}

/** The console's credentials, sessions, one-time links and sign-in failure counts on Kysely. */
export class KyselyAccountRepository implements AccountRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async findCredential(memberId: number): Promise<Credential | undefined> {
    const row = await this.db
      .selectFrom('member_credentials')
      .selectAll()
      .where('member_id', '=', memberId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      memberId: Number(row.member_id),
      passwordHash: row.password_hash,
      totpSecretSealed: row.totp_secret_sealed,
      totpConfirmedAt: date(row.totp_confirmed_at),
      totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
    };
  }

  async setPassword(memberId: number, passwordHash: string, at: Date, resetTotp: boolean): Promise<void> {
    const totp = resetTotp ? { totp_secret_sealed: null, totp_confirmed_at: null, totp_last_step: null } : {};
    await this.db
      .insertInto('member_credentials')
      .values({ member_id: memberId, password_hash: passwordHash, updated_at: at.getTime() })
      .onConflict((oc) =>
        oc.column('member_id').doUpdateSet({ password_hash: passwordHash, updated_at: at.getTime(), ...totp }),
      )
      .execute();
  }

  async setTotpSecret(memberId: number, sealed: string, at: Date): Promise<void> {
    await this.db
      .updateTable('member_credentials')
      .set({ totp_secret_sealed: sealed, totp_confirmed_at: null, totp_last_step: null, updated_at: at.getTime() })
      .where('member_id', '=', memberId)
      .execute();
  }

  async confirmTotp(memberId: number, step: number, at: Date): Promise<void> {
    await this.db
      .updateTable('member_credentials')
      .set({ totp_confirmed_at: at.getTime(), totp_last_step: step, updated_at: at.getTime() })
      .where('member_id', '=', memberId)
      .execute();
  }

  async useTotpStep(memberId: number, step: number): Promise<boolean> {
    const result = await this.db
      .updateTable('member_credentials')
      .set({ totp_last_step: step })
      .where('member_id', '=', memberId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertSession(session: Omit<ConsoleSession, 'id'> & { tokenHash: string }): Promise<ConsoleSession> {
    const row = await this.db
      .insertInto('console_sessions')
      .values({
        token_hash: session.tokenHash,
        member_id: session.memberId,
        team_id: session.teamId,
        stage: session.stage,
        csrf_token: session.csrfToken,
        created_at: session.created.getTime(),
        last_seen_at: session.lastSeen.getTime(),
        expires_at: session.expires.getTime(),
        revoked_at: session.revoked?.getTime() ?? null,
        address: session.address,
        user_agent: session.userAgent,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toSession(row);
  }

  async findSession(tokenHash: string): Promise<ConsoleSession | undefined> {
    const row = await this.db
      .selectFrom('console_sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && toSession(row);
  }

  async touchSession(id: number, at: Date): Promise<void> {
    await this.db
      .updateTable('console_sessions')
      .set({ last_seen_at: at.getTime() })
      .where('id', '=', id)
      .where('last_seen_at', '<', at.getTime() - 60_000)
      .execute();
  }

  async promoteSession(id: number, tokenHash: string, at: Date): Promise<void> {
    await this.db
      .updateTable('console_sessions')
      .set({ token_hash: tokenHash, stage: 'signed_in', last_seen_at: at.getTime() })
      .where('id', '=', id)
      .execute();
  }

  async revokeSession(id: number, at: Date): Promise<void> {
    await this.db
      .updateTable('console_sessions')
      .set({ revoked_at: at.getTime() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async revokeMemberSessions(memberId: number, at: Date): Promise<number> {
    const result = await this.db
      .updateTable('console_sessions')
      .set({ revoked_at: at.getTime() })
      .where('member_id', '=', memberId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async insertLink(link: Omit<AccountLink, 'id' | 'used'> & { tokenHash: string }): Promise<AccountLink> {
    const row = await this.db
      .insertInto('account_links')
      .values({
        token_hash: link.tokenHash,
        member_id: link.memberId,
        team_id: link.teamId,
        purpose: link.purpose,
        created_at: link.created.getTime(),
        expires_at: link.expires.getTime(),
        used_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toLink(row);
  }

  async findLink(tokenHash: string): Promise<AccountLink | undefined> {
    const row = await this.db
      .selectFrom('account_links')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && toLink(row);
  }

  async useLink(id: number, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('account_links')
      .set({ used_at: at.getTime() })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async endMemberLinks(memberId: number, at: Date): Promise<number> {
    const result = await this.db
      .updateTable('account_links')
      .set({ used_at: at.getTime() })
      .where('member_id', '=', memberId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async failures(key: string, since: Date): Promise<number> {
    const row = await this.db
      .selectFrom('sign_in_failures')
      .select(['failures', 'window_start'])
      .where('key', '=', key)
      .executeTakeFirst();
    if (row === undefined || Number(row.window_start) < since.getTime()) return 0;
    return Number(row.failures);
  }

  async addFailure(key: string, at: Date, windowStart: Date): Promise<void> {
    await this.db
      .insertInto('sign_in_failures')
      .values({ key, window_start: at.getTime(), failures: 1 })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          // A window that began before windowStart is over: the failure opens a new one.
          failures: eb
            .case()
            .when('sign_in_failures.window_start', '<', windowStart.getTime())
            .then(1)
            .else(eb('sign_in_failures.failures', '+', 1))
            .end(),
          window_start: eb
            .case()
            .when('sign_in_failures.window_start', '<', windowStart.getTime())
            .then(at.getTime())
            .else(eb.ref('sign_in_failures.window_start'))
            .end(),
        })),
      )
      .execute();
  }

  async clearFailures(key: string): Promise<void> {
    await this.db.deleteFrom('sign_in_failures').where('key', '=', key).execute();
  }

  async recordLogin(memberId: number, at: Date): Promise<void> {
    await this.db.updateTable('members').set({ last_login: at.getTime() }).where('id', '=', memberId).execute();
  }

  async findMembersByEmail(email: string): Promise<Array<{ memberId: number; teamId: number }>> {
    const rows = await this.db
      .selectFrom('members')
      .select(['id', 'team_id'])
      .where('email', '=', email)
      .orderBy('id')
      .limit(50)
      .execute();
    return rows.map((r) => ({ memberId: Number(r.id), teamId: Number(r.team_id) }));
  }
}
