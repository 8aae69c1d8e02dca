import type pg from 'pg';

/** Which PostgreSQL reads run as named (prepared) statements (see pg-statements.mjs). */
export class StatementNames {
  constructor(capacity?: number);
  /** From now on the schema does not change in this process (called after migrations). */
  settle(): void;
  /** The name to run a text under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined;
  /** A named text failed because its plan went stale: run it unnamed from now on. */
  refuse(text: string): void;
  readonly size: number;
}

/** Runs `text` under its name when it has one, else unnamed; after a stale plan once more, unnamed. */
export function queryNamed<R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: Pick<pg.ClientBase, 'query'>,
  names: StatementNames,
  text: string,
  values: unknown[],
  rowMode?: 'array',
): Promise<pg.QueryResult<R>>;

/** The type parsers of every connection of the store: bigint and numeric as numbers, the rest as the driver reads them. */
export function storeTypes(driver: typeof pg): pg.CustomTypesConfig;

/** The URL and session `options` of every connection of the store: the URL's own options, then no parallel query and the schema. */
export function connectionSettings(
  url: string,
  searchPath: string | undefined,
): { connectionString: string; options: string };

/** The settings of every pool of the store: its connection settings and `size` connections, kept once opened. */
export function poolSettings(
  url: string,
  searchPath: string | undefined,
  size: number,
): { connectionString: string; options: string; max: number; min: number };
