import type { AssetName } from '../assets/asset-name.ts';
import type { Asset, AssetRepositories, ZoneSource } from '../assets/asset.types.ts';
import type { Transactional } from '../shared/transactional.ts';
import type { Team } from '../teams/team.types.ts';
import type { DnsRecordInput, ZoneRepository } from './zone.types.ts';

/** Status of a zone lookup job, as callers read it. */
export type LookupStatus = 'queued' | 'running' | 'done' | 'failed';

/** A zone lookup job. */
export interface LookupJob {
  id: number;
  uuid: string;
  teamId: number;
  status: LookupStatus;
  /** Names received (non-empty lines). */
  total: number;
  succeeded: number;
  failed: number;
  chunks: number;
  /** Checkpoint: the first stored chunk not yet processed. */
  nextChunk: number;
  error: string | null;
  created: Date;
  started: Date | null;
  finished: Date | null;
}

/** Resolves names; a name maps to its records, or to null when it failed (NXDOMAIN, no data, timeout). */
export interface NameResolver {
  resolveNames(names: string[], signal: AbortSignal): Promise<Map<string, DnsRecordInput[] | null>>;
}

/** Persistence of zone lookup jobs and their uploaded lists. */
export interface LookupJobRepository {
  create(job: Omit<LookupJob, 'id'>): Promise<LookupJob>;
  addChunk(jobId: number, seq: number, data: string): Promise<void>;
  /** Sets the totals of a finished upload and makes the job visible as queued. */
  finishUpload(jobId: number, total: number, chunks: number): Promise<void>;
  findByUuid(uuid: string): Promise<LookupJob | undefined>;
  chunk(jobId: number, seq: number): Promise<string | undefined>;
  /** The names among `names` this job processed already. */
  seen(jobId: number, names: string[]): Promise<Set<string>>;
  markSeen(jobId: number, names: string[]): Promise<void>;
  /** Records a processed chunk: adds the counts and moves the checkpoint, only if it still points at `seq`. */
  checkpoint(jobId: number, seq: number, succeeded: number, failed: number): Promise<boolean>;
  setStatus(jobId: number, status: LookupStatus, at: Date, error?: string): Promise<void>;
  /** Drops the uploaded list of a finished job (its status row stays). */
  dropWorkData(jobId: number): Promise<void>;
  /** Deletes jobs uploaded before the cutoff. */
  purgeBefore(cutoff: Date): Promise<number>;
  /** A team's jobs uploaded at or after `since`, newest first, at most `limit`. */
  recentByTeam(teamId: number, since: Date, limit: number): Promise<LookupJob[]>;
  /** Jobs not finished (for re-enqueueing after a crash between upload and enqueue). */
  unfinished(): Promise<LookupJob[]>;
}

/** An event of the team log as the zone services write it (the events area's NewEvent, narrowed: zone-events.ts). */
export interface ZoneLogEntry {
  teamId: number;
  kind: 'zone_lookup.finished';
  occurredAt: Date;
  data: Record<string, unknown>;
}

/**
 * Port: the team event log, appended to in the caller's transaction. The events area's
 * EventRepository implements it; its types are not imported here (they lead back to this area
 * through the vulnerabilities' and the groups' types: a loop of folders).
 */
export interface ZoneEventLog {
  append(events: readonly ZoneLogEntry[]): Promise<void>;
}

/**
 * The repositories of the zone services: the asset services' (zone uploads add apexes), the
 * names, the lookup jobs and the team event log.
 */
export type ZoneRepositories = AssetRepositories & {
  zones: ZoneRepository;
  zoneLookups: LookupJobRepository;
  events: ZoneEventLog;
};

/** The store as the zone services see it. */
export type ZoneStore = Transactional<ZoneRepositories>;

/**
 * What a zone upload or transfer asks of the assets area: its apex added as an asset inside the
 * upload's transaction, with the rules and errors of adding one by hand (2018 …). The assets area
 * implements it (addAssetInTransaction).
 */
export interface ApexAssetAdder {
  addAssetInTransaction(
    tx: AssetRepositories,
    team: Team,
    parsed: AssetName,
    origin: ZoneSource,
  ): Promise<{ asset: Asset }>;
}

/** The other areas' capabilities the zone services take, wired by the composition root. */
export interface ZonePorts {
  assets: ApexAssetAdder;
}

/** The store and the ports, as the zone uploads take them (the HTTP deps satisfy it). */
export interface ZoneDeps {
  store: ZoneStore;
  ports: ZonePorts;
}
