import type { Generated } from 'kysely';

// The imports of other tools' results (migration 027), part of the Schema of schema.ts.

/** Imports of other tools' results (migration 027). */
export interface ImportsTable {
  id: Generated<number>;
  uuid: string;
  team_id: number;
  format: string;
  status: string;
  progress: number;
  bytes: number;
  chunks: number;
  /** JSON of the import's counts. */
  counts: string;
  error: string | null;
  error_line: number | null;
  created: number;
  started: number | null;
  finished: number | null;
}

/** The uploaded file of an import, cut at line ends, until its job has read it. */
export interface ImportChunksTable {
  import_id: number;
  seq: number;
  data: string;
}

/** The whole schema as Kysely sees it. */
