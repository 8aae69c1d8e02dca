import type { MemberRole } from '../members/member.types.ts';

/**
 * The console's account rules: how long sessions and links live, how many failed sign-ins are
 * allowed, and what each role may do. The limits can be set by configuration
 * (config.ts: PERIMETER_SESSION_*); these are the defaults.
 */
export interface AccountPolicy {
  /** A session unused this long ends. */
  sessionIdleMs: number;
  /** A session ends this long after sign-in, however active. */
  sessionMaxMs: number;
  /** An invitation link (a first password) is valid this long. */
  invitationLinkMs: number;
  /** A reset link (a new password) is valid this long. */
  resetLinkMs: number;
  /** Failed sign-ins allowed per account (e-mail) within one window. */
  accountFailures: number;
  /** Failed sign-ins allowed per client address within one window. */
  addressFailures: number;
  /** The window failures are counted in; the first failure opens it. */
  failureWindowMs: number;
}

export const defaultAccountPolicy: AccountPolicy = {
  sessionIdleMs: 30 * 60_000,
  sessionMaxMs: 12 * 3600_000,
  invitationLinkMs: 7 * 24 * 3600_000,
  resetLinkMs: 3600_000,
  accountFailures: 5,
  addressFailures: 20,
  failureWindowMs: 15 * 60_000,
};

/** The account rules with the session limits of the configuration (config.ts: sessionIdleMinutes, sessionMaxHours). */
export function accountPolicyOf(limits: { sessionIdleMinutes: number; sessionMaxHours: number }): AccountPolicy {
  return {
    ...defaultAccountPolicy,
    sessionIdleMs: limits.sessionIdleMinutes * 60_000,
    sessionMaxMs: limits.sessionMaxHours * 3_600_000,
  };
}

/**
 * What a console action needs: `read` (every role), `triage` (marks and tags), `scan` (add an
 * asset, check its verification, create scan profiles, start and stop scans, set schedules),
 * `administer` (delete an asset or a scan profile, their settings, members, keys). Viewers read;
 * Editors triage and scan; Admins do everything.
 */
export type ConsoleAction = 'read' | 'triage' | 'scan' | 'administer';

const allowed: Record<MemberRole, ReadonlySet<ConsoleAction>> = {
  Viewer: new Set(['read']),
  Editor: new Set(['read', 'triage', 'scan']),
  Admin: new Set(['read', 'triage', 'scan', 'administer']),
};

/** Whether a role may take an action. */
export function roleAllows(role: MemberRole, action: ConsoleAction): boolean {
  return allowed[role].has(action);
}
