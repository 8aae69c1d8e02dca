import type { Generated } from 'kysely';

/** The console's account tables (migration 022), part of the Schema of schema.ts. */

/** How a member signs in to the console (migration 022): at most one row per member. */
export interface MemberCredentialsTable {
  member_id: number;
  password_hash: string;
  totp_secret_sealed: string | null;
  totp_confirmed_at: number | null;
  totp_last_step: number | null;
  updated_at: number;
}

/** One console sign-in (migration 022); the cookie's id is stored only as its SHA-256. */
export interface ConsoleSessionsTable {
  id: Generated<number>;
  token_hash: string;
  member_id: number;
  team_id: number;
  stage: string;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  revoked_at: number | null;
  address: string;
  user_agent: string;
}

/** One-time account links: invitations and password resets (migration 022). */
export interface AccountLinksTable {
  id: Generated<number>;
  token_hash: string;
  member_id: number;
  team_id: number;
  purpose: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Failed sign-ins per account or address in their current window (migration 022). */
export interface SignInFailuresTable {
  key: string;
  window_start: number;
  failures: number;
}

/** A team's OpenID Connect provider for console single sign-on (migration 023); the secret sealed. */
export interface TeamSsoTable {
  team_id: number;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  updated_at: number;
}
