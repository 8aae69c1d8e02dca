import type { AssetRepository } from '../assets/asset.types.ts';
import type { Transactional } from '../shared/transactional.ts';
import type { Team } from '../teams/team.types.ts';
import type { FindingInput, ScanReport } from '../vulnerabilities/vulnerability.types.ts';
import type { PortInventoryRepository } from '../surface/port-inventory.types.ts';
import type { ServiceGuess } from '../surface/exposure-engines.ts';

/** The file formats an import reads. */
export const importFormats = ['nuclei', 'zap', 'sarif', 'nmap'] as const;
export type ImportFormat = (typeof importFormats)[number];

/** Status of an import, as callers read it. */
export type ImportStatus = 'queued' | 'running' | 'done' | 'failed';

/** What an import read and wrote. */
export interface ImportCounts {
  /** Lines of the file. */
  lines: number;
  /** Results the file holds (nuclei lines, ZAP alert instances, SARIF results, nmap ports). */
  results: number;
  findingsCreated: number;
  findingsUpdated: number;
  /** Results whose host is not an asset of the team (or that name no host): not imported. */
  skipped: number;
  /** nmap: (address, port) pairs recorded open. */
  portsRecorded: number;
  /** nmap: hosts that are not assets of the team. */
  hostsSkipped: number;
}

/** One import. */
export interface ImportJob {
  id: number;
  uuid: string;
  teamId: number;
  format: ImportFormat;
  status: ImportStatus;
  /** 0 to 100. */
  progress: number;
  bytes: number;
  chunks: number;
  counts: ImportCounts;
  error: string | null;
  /** The line of the file the error names, when it names one. */
  errorLine: number | null;
  created: Date;
  started: Date | null;
  finished: Date | null;
}

/** Persistence of imports and their uploaded files. */
export interface ImportRepository {
  create(job: Omit<ImportJob, 'id'>): Promise<ImportJob>;
  addChunk(importId: number, seq: number, data: string): Promise<void>;
  finishUpload(importId: number, bytes: number, chunks: number): Promise<void>;
  /** The team's import of that id (what the API reads). */
  findForTeam(teamId: number, uuid: string): Promise<ImportJob | undefined>;
  /** An import by its id alone: for its job, which runs for whatever team made it. */
  findByUuid(uuid: string): Promise<ImportJob | undefined>;
  chunks(importId: number): Promise<string[]>;
  setRunning(importId: number, at: Date): Promise<void>;
  setProgress(importId: number, progress: number): Promise<void>;
  /** Ends an import: done with its counts, or failed with its error; only one still queued or running. */
  finish(
    importId: number,
    outcome: { status: 'done' | 'failed'; counts: ImportCounts; error?: string; errorLine?: number | null },
    at: Date,
  ): Promise<boolean>;
  dropChunks(importId: number): Promise<void>;
  /** Marks the findings an import created (revision 1, last written by `scanId`) with its source. */
  markSource(teamId: number, ids: number[], scanId: string, source: string): Promise<void>;
  /** Imports not finished (re-enqueued after a crash between upload and enqueue). */
  unfinished(): Promise<ImportJob[]>;
  purgeBefore(cutoff: Date): Promise<number>;
}

/** The repositories the import services use. */
export interface ImportRepositories {
  imports: ImportRepository;
  assets: AssetRepository;
  ports: PortInventoryRepository;
}

/** The store as the import services see it. */
export type ImportStore = Transactional<ImportRepositories>;

/** A finding of the file, with the host it names. */
export interface ParsedFinding {
  /** The host as the file names it (a name or an address, lower case). */
  host: string;
  finding: FindingInput;
}

/** A host of an nmap file: its address, names and open ports. */
export interface ParsedHost {
  address: string;
  names: string[];
  open: Array<{ port: number; service: ServiceGuess }>;
  /** Ports nmap reported closed. */
  closed: number[];
}

/** What a parser read of a whole file. */
export interface ParsedImport {
  lines: number;
  results: number;
  findings: ParsedFinding[];
  hosts: ParsedHost[];
  /** Results that name no host. */
  hostless: number;
}

/** A file that does not parse: the message and the line it names. */
export class ImportParseError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message);
    this.name = 'ImportParseError';
  }
}

/** What the import's writes take from other areas, wired by the job (they run inside the import's transaction). */
export interface ImportWriters<R> {
  /** Records the findings of one asset through the vulnerabilities' ingestion, never patching anything. */
  recordFindings(
    tx: R,
    report: Omit<ScanReport, 'isComplete'>,
    scanId: string,
    findings: FindingInput[],
    afterBatch: (tx: R, ids: number[]) => Promise<void>,
  ): Promise<{ created: number; updated: number }>;
  /** Records the open ports of one root asset through the port inventory. */
  recordPorts(
    tx: R,
    input: {
      teamId: number;
      assetId: number;
      at: number;
      open: Array<{ address: string; port: number; domainName: string; service: ServiceGuess }>;
    },
  ): Promise<void>;
}

/** A team, as the import services need it. */
export type ImportTeam = Pick<Team, 'id'>;
