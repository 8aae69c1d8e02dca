import type { MemberRepositories } from '../members/member.types.ts';
import type { Transactional } from '../shared/transactional.ts';

/** How a member signs in to the console: a password hash and, for `2fa` members, a TOTP secret. */
export interface Credential {
  memberId: number;
  /** scrypt, self-describing (password.ts). */
  passwordHash: string;
  /** The TOTP secret sealed with the server key; null until enrolment starts. */
  totpSecretSealed: string | null;
  /** When a first code proved the enrolment; null while it is not proved. */
  totpConfirmedAt: Date | null;
  /** The last 30-second step a code was accepted for (a code is never accepted twice). */
  totpLastStep: number | null;
}

/** `second_factor` between a right password and the TOTP code of a `2fa` member; `signed_in` after. */
export type SessionStage = 'second_factor' | 'signed_in';

/** One console sign-in, as the store keeps it (its cookie id only as a hash). */
export interface ConsoleSession {
  id: number;
  memberId: number;
  teamId: number;
  stage: SessionStage;
  /** The synchroniser token every state-changing request of the session must carry. */
  csrfToken: string;
  created: Date;
  lastSeen: Date;
  /** The absolute end, whatever the activity. */
  expires: Date;
  revoked: Date | null;
  address: string;
  userAgent: string;
}

/** `invitation`: a first password for a pending member; `reset`: a new one for an active member. */
export type AccountLinkPurpose = 'invitation' | 'reset';

/** A one-time account link (the token itself is only ever in the URL handed to the member). */
export interface AccountLink {
  id: number;
  memberId: number;
  teamId: number;
  purpose: AccountLinkPurpose;
  created: Date;
  expires: Date;
  used: Date | null;
}

/** Persistence of the console's accounts. Sessions and links are found by the hash of their token. */
export interface AccountRepository {
  findCredential(memberId: number): Promise<Credential | undefined>;
  /** Writes the password hash, keeping the TOTP fields unless `resetTotp`. */
  setPassword(memberId: number, passwordHash: string, at: Date, resetTotp: boolean): Promise<void>;
  /** Starts a TOTP enrolment with a new sealed secret (not confirmed yet). */
  setTotpSecret(memberId: number, sealed: string, at: Date): Promise<void>;
  /** Marks the enrolment proved and records the step of the code that proved it. */
  confirmTotp(memberId: number, step: number, at: Date): Promise<void>;
  /**
   * Records an accepted code's step if it is later than the last one: false when it is not (the
   * code, or an older one, was used already).
   */
  useTotpStep(memberId: number, step: number): Promise<boolean>;

  insertSession(session: Omit<ConsoleSession, 'id'> & { tokenHash: string }): Promise<ConsoleSession>;
  findSession(tokenHash: string): Promise<ConsoleSession | undefined>;
  /** Sets last_seen (the idle clock) when it is older than `at` by more than a minute. */
  touchSession(id: number, at: Date): Promise<void>;
  /** The second factor passed: the session gets a new token and the `signed_in` stage. */
  promoteSession(id: number, tokenHash: string, at: Date): Promise<void>;
  revokeSession(id: number, at: Date): Promise<void>;
  /** Ends every session of a member (a new password, a role removed). */
  revokeMemberSessions(memberId: number, at: Date): Promise<number>;

  insertLink(link: Omit<AccountLink, 'id' | 'used'> & { tokenHash: string }): Promise<AccountLink>;
  findLink(tokenHash: string): Promise<AccountLink | undefined>;
  /** Marks a link used; false when it was used already (two tabs, a replay). */
  useLink(id: number, at: Date): Promise<boolean>;
  /** Ends every unused link of a member (marked used at `at`); the number ended. */
  endMemberLinks(memberId: number, at: Date): Promise<number>;

  /** Failures of a key within the window that started at `since` or later (0 when none). */
  failures(key: string, since: Date): Promise<number>;
  /** Counts one failure, starting a new window at `at` when the last one began before `windowStart`. */
  addFailure(key: string, at: Date, windowStart: Date): Promise<void>;
  clearFailures(key: string): Promise<void>;
  /** Sets the member's last_login. */
  recordLogin(memberId: number, at: Date): Promise<void>;
  /** Every member (in every team) with this e-mail address, with its credential when it has one. */
  findMembersByEmail(email: string): Promise<Array<{ memberId: number; teamId: number }>>;
}

/** The repositories of the account services. */
export interface AccountRepositories extends MemberRepositories {
  accounts: AccountRepository;
}

/** The store as the account services see it. */
export type AccountStore = Transactional<AccountRepositories>;
