import type { EndpointGroup, PlanName } from './plans.ts';

/** A team: the tenant. Every resource belongs to exactly one team. */
export interface Team {
  id: number;
  token: string;
  name: string;
  plan: PlanName;
  /** The code an asset owner publishes (DNS TXT or HTTP file) to prove ownership. */
  verificationCode: string;
  created: Date;
}

/** An API key as stored: never the key itself, only its hash. */
export interface ApiKey {
  id: number;
  /** Public id (`key_` and 10 random characters): names the key in listings and revocations; reveals nothing of it. */
  publicId: string;
  kind: 'v2' | 'v3';
  /** First characters of the key, to recognise it in listings. */
  hint: string;
  /** The endpoint groups the key may call; null means every group of the team's plan. */
  permissions: EndpointGroup[] | null;
  /** The signing secret, encrypted with the server key; null for an unsigned key. */
  secretSealed: string | null;
  teamIds: number[];
  created: Date;
  revoked: Date | null;
  /** When the key last authenticated a request (to within a minute), null when never. */
  lastUsed: Date | null;
}

/** Persistence of teams. */
export interface TeamRepository {
  insert(team: Omit<Team, 'id'>): Promise<Team>;
  findById(id: number): Promise<Team | undefined>;
  findByName(name: string): Promise<Team | undefined>;
  count(): Promise<number>;
}

/** Persistence of API keys. */
export interface ApiKeyRepository {
  insert(key: Omit<ApiKey, 'id' | 'lastUsed'> & { keyHash: string }): Promise<ApiKey>;
  findByHash(keyHash: string): Promise<ApiKey | undefined>;
  findByPublicId(publicId: string): Promise<ApiKey | undefined>;
  listByTeam(teamId: number): Promise<ApiKey[]>;
  /** Marks the key revoked; false when no such key, or it was revoked already (its first revocation time stays). */
  revoke(id: number, at: Date): Promise<boolean>;
  /** Sets the key's last use to `at` unless it is already at or after `notBefore` (another write was recent enough). */
  recordUse(id: number, at: Date, notBefore: Date): Promise<void>;
}

/** The repositories the team and key services work with. */
export interface TeamRepositories {
  teams: TeamRepository;
  keys: ApiKeyRepository;
}
