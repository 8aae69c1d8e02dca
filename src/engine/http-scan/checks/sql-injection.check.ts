import {
  allLocations,
  baselineRequest,
  describePoint,
  injectPayload,
  type InjectionPoint,
} from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint, type InjectedSender } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { firstNewMatch, sameAnswer } from './response-compare.ts';
import { confirmDelay, delaySeconds, describeDelay, timedSend } from './time-delay.ts';

/** Stable id of the SQL injection check. */
export const sqlInjectionCheckId = 'sql-injection';

/** The kind of finding the check reports (exported for the catalogue's tests). */
export const sqlInjectionKind: FindingKind = {
  checkId: sqlInjectionCheckId,
  title: 'SQL injection',
  cwe: 89,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  // NVD's vector for an unauthenticated remote SQL injection: partial impacts (the data the
  // application's database account reaches, not the whole host), 7.5.
  cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
  severity: 'high',
  owasp: 'A03:2021-Injection',
  description:
    'A request parameter is placed into an SQL statement without being bound as a parameter: a quote changes the statement.',
  risk: 'An attacker can read, change or delete the data of the database, often bypass authentication, and sometimes run commands on the database server.',
  remediation:
    'Use parameterised queries (prepared statements) or an ORM that binds values for every query; never build SQL by concatenating input. Validate types (an id is a number) and give the database account the least privilege it needs.',
  references: [
    { link: 'https://owasp.org/www-community/attacks/SQL_Injection', name: 'OWASP: SQL Injection' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/SQL_Injection_Prevention_Cheat_Sheet.html',
      name: 'OWASP SQL Injection Prevention Cheat Sheet',
    },
  ],
};

/** Error messages of the main database engines and their drivers. */
export const SQL_ERRORS: Array<{ engine: string; pattern: RegExp }> = [
  {
    engine: 'MySQL/MariaDB',
    pattern:
      /You have an error in your SQL syntax|check the manual that (?:corresponds|fits) to your (?:MySQL|MariaDB) server version|Warning: mysqli?_\w+\(|MySqlException|com\.mysql\.jdbc/i,
  },
  {
    engine: 'PostgreSQL',
    pattern:
      /PG::SyntaxError|org\.postgresql\.util\.PSQLException|ERROR:\s+(?:syntax error at or near|unterminated quoted string at or near)|pg_query\(\): Query failed|psycopg2\.errors\./i,
  },
  {
    engine: 'SQLite',
    pattern: /SQLITE_ERROR|sqlite3\.OperationalError|unrecognized token: "|near "[^"]*": syntax error|SQLiteException/i,
  },
  {
    engine: 'Microsoft SQL Server',
    pattern:
      /Unclosed quotation mark after the character string|Microsoft OLE DB Provider for SQL Server|System\.Data\.SqlClient\.SqlException|\[SQL Server\]|Incorrect syntax near/i,
  },
  { engine: 'Oracle', pattern: /\bORA-0(?:0933|1756|0921|1740)\b|quoted string not properly terminated|oracle\.jdbc/i },
];

/** The database error a body shows that the baseline does not, with its engine. */
export function findSqlError(
  body: string,
  baseline: string,
): { engine: string; value: string; offset: number } | undefined {
  for (const { engine, pattern } of SQL_ERRORS) {
    const match = firstNewMatch(pattern, body, baseline);
    if (match !== undefined) return { engine, ...match };
  }
  return undefined;
}

/** Boolean payload pairs: a true condition that must answer like the original, a false one that must not. */
const BOOLEAN_PAIRS: Array<{ context: string; isTrue: string; isFalse: string }> = [
  { context: 'string', isTrue: "' AND '1'='1", isFalse: "' AND '1'='2" },
  { context: 'numeric', isTrue: ' AND 1=1', isFalse: ' AND 1=2' },
];

/**
 * Time-based payloads per engine and context, as functions of the seconds to wait (0 for the
 * control). SQLite has no sleep function: the usual stand-in, a heavy `randomblob()` query,
 * takes a time that depends on the server's CPU (no reliable threshold) and loads it for real,
 * so SQLite is left to the error-based test.
 */
const TIME_PAYLOADS: Array<{ engine: string; context: string; payload: (seconds: number) => string }> = [
  { engine: 'MySQL/MariaDB', context: 'string', payload: (s) => `' AND SLEEP(${s})-- -` },
  { engine: 'MySQL/MariaDB', context: 'numeric', payload: (s) => ` AND SLEEP(${s})` },
  { engine: 'PostgreSQL', context: 'string', payload: (s) => `'||pg_sleep(${s})--` },
  { engine: 'PostgreSQL', context: 'numeric', payload: (s) => ` AND 1=(SELECT 1 FROM pg_sleep(${s}))` },
  { engine: 'Microsoft SQL Server', context: 'string', payload: (s) => `'; WAITFOR DELAY '0:0:${s}'--` },
  { engine: 'Microsoft SQL Server', context: 'numeric', payload: (s) => `; WAITFOR DELAY '0:0:${s}'--` },
];

/**
 * True when a payload of this SQL context can apply to the point: a value that is not a number
 * cannot sit in a numeric context (the statement would fail already), so its numeric payloads
 * are not sent.
 */
function fitsContext(point: InjectionPoint, sqlContext: string): boolean {
  return sqlContext !== 'numeric' || /^-?\d+(?:\.\d+)?$/.test(point.value.trim());
}

async function testErrorBased(
  point: InjectionPoint,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
): Promise<boolean> {
  for (const payload of ["'", '"']) {
    const exchange = await send(injectPayload(point, payload, 'append'));
    const error = findSqlError(exchange.body, page.exchange.body);
    if (error === undefined) continue;
    await reportAtPoint(sqlInjectionKind, point, page, context, {
      exchange,
      evidence: { value: error.value, offset: error.offset },
      confirmation: `error-based: appending ${JSON.stringify(payload)} to ${describePoint(point)} makes the page show a ${error.engine} error ("${error.value}") that the original request does not`,
    });
    return true;
  }
  return false;
}

async function testBooleanBased(
  point: InjectionPoint,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
): Promise<boolean> {
  // The original answer, fetched again now: pages that change on every load are not judged.
  const baseline = await send(baselineRequest(point));
  if (!sameAnswer(baseline, page.exchange, [])) return false;
  for (const pair of BOOLEAN_PAIRS.filter((p) => fitsContext(point, p.context))) {
    const isTrue = await send(injectPayload(point, pair.isTrue, 'append'));
    if (!sameAnswer(isTrue, baseline, [pair.isTrue])) continue;
    const isFalse = await send(injectPayload(point, pair.isFalse, 'append'));
    if (sameAnswer(isFalse, baseline, [pair.isFalse])) continue;
    // Confirmed twice: the true condition answers like the original again.
    const again = await send(injectPayload(point, pair.isTrue, 'append'));
    if (!sameAnswer(again, baseline, [pair.isTrue])) continue;
    await reportAtPoint(sqlInjectionKind, point, page, context, {
      exchange: isFalse,
      confirmation: `boolean-based (${pair.context} context): ${describePoint(point)} with ${JSON.stringify(pair.isTrue)} appended answers like the original request (twice), with ${JSON.stringify(pair.isFalse)} appended it answers differently (status ${isFalse.status}, ${isFalse.body.length} bytes against ${baseline.status}, ${baseline.body.length})`,
    });
    return true;
  }
  return false;
}

async function testTimeBased(
  point: InjectionPoint,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
): Promise<void> {
  const baseline = await timedSend(send, baselineRequest(point));
  for (const { engine, context: sqlContext, payload } of TIME_PAYLOADS.filter((p) => fitsContext(point, p.context))) {
    const delayed = payload(delaySeconds);
    const control = payload(0);
    const proof = await confirmDelay(
      send,
      baseline,
      injectPayload(point, delayed, 'append'),
      injectPayload(point, control, 'append'),
    );
    if (proof === undefined) continue;
    await reportAtPoint(sqlInjectionKind, point, page, context, {
      exchange: proof.second.exchange,
      confirmation: `time-based (${engine}, ${sqlContext} context) ${describeDelay(delayed, control, proof, baseline)}`,
    });
    return;
  }
}

/**
 * SQL injection in every injection point, request headers and site cookies included:
 * error-based (a quote appended makes a database error of MySQL/MariaDB, PostgreSQL, SQLite,
 * SQL Server or Oracle appear that the original page does not show), then boolean-based (a
 * true condition answers like the original, twice, and a false one differently, the payload's
 * own echo removed before comparing; not for headers), then time-based (a sleep of
 * MySQL/MariaDB, PostgreSQL or SQL Server delays the answer past the original's time, a sleep
 * of 0 does not, and the delay repeats). Numeric-context payloads go only to numeric values.
 * One finding per point.
 */
export function createSqlInjectionCheck(): PageCheck {
  return createActiveCheck({
    id: sqlInjectionCheckId,
    locations: allLocations,
    async test(point, page, context, send) {
      if (await testErrorBased(point, page, context, send)) return;
      // A logged header (User-Agent, Referer) goes into an INSERT, where a condition changes no content.
      if (point.location !== 'header' && (await testBooleanBased(point, page, context, send))) return;
      await testTimeBased(point, page, context, send);
    },
  });
}
