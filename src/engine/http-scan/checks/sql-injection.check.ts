import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import {
  allLocations,
  baselineRequest,
  describePoint,
  injectPayload,
  isMetadataPoint,
  type InjectedRequest,
  type InjectionPoint,
} from '../check-kit/injection.ts';
import { needsOtherValues, sampleValuesOf } from '../check-kit/sample-values.ts';
import { createActiveCheck, reportAtPoint, type InjectedSender } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { firstNewMatch, sameAnswer } from './response-compare.ts';
import { confirmDelay, delaySeconds, describeDelay, reachingValues, timedSend } from './time-delay.ts';

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

/** A double quote as a page may show it: raw, HTML-escaped (an error page) or JSON-escaped (an API's error body). */
const Q = '(?:"|&quot;|&#34;|&#x22;|\\\\")';

/**
 * Error messages of the main database engines and their drivers, as the page of an uncaught
 * exception, a framework's error page (HTML-escaped) or an API's JSON error body shows them:
 * PHP 8 mysqli (`mysqli_sql_exception`) and PDO (`SQLSTATE[42000]`, `PDOException`), the Node
 * drivers mysql/mysql2 (`ER_PARSE_ERROR`, `sqlMessage`), the MariaDB connector (`(conn=…, no:
 * 1064, SQLState: 42000)`), node-postgres (`error: syntax error at or near`), better-sqlite3 and
 * sqlite3 (`SqliteError`, `SQLITE_ERROR`), tedious/mssql (`RequestError`), and the engines' own
 * texts. The texts are those the real servers print (checked against MariaDB 10.11, PostgreSQL
 * and SQLite through the drivers above).
 */
export const SQL_ERRORS: Array<{ engine: string; pattern: RegExp }> = [
  {
    engine: 'MySQL/MariaDB',
    pattern:
      /You have an error in your SQL syntax|check the manual that (?:corresponds|fits) to your (?:MySQL|MariaDB) server version|Uncaught mysqli_sql_exception|Warning: mysqli?_\w+\(|MySqlException|com\.mysql\.jdbc|\bER_(?:PARSE_ERROR|BAD_FIELD_ERROR|NO_SUCH_TABLE|WRONG_VALUE_COUNT_ON_ROW|TRUNCATED_WRONG_VALUE)\b|\(conn[=:]\s?-?\d+, no: \d+, SQLState: [0-9A-Z]{5}\)|SQLSTATE\[(?:42000|42S02|42S22)\]: (?:Syntax error|Base table|Column not found)/i,
  },
  {
    engine: 'PostgreSQL',
    pattern:
      /PG::SyntaxError|org\.postgresql\.util\.PSQLException|(?:ERROR:\s+)?(?:syntax error at (?:or near|end of input)|unterminated quoted string at or near)|invalid input syntax for (?:type )?(?:integer|bigint|numeric|uuid)|pg_query\(\): Query failed|psycopg2\.errors\.|SQLSTATE\[(?:42601|22P02|42P01|42703)\]/i,
  },
  {
    engine: 'SQLite',
    pattern: new RegExp(
      `SQLITE_ERROR|SqliteError: |sqlite3\\.OperationalError|unrecognized token: ${Q}|near ${Q}[^"\\\\]{0,80}?${Q}: syntax error|SQLiteException|SQLSTATE\\[HY000\\]: General error: 1 `,
      'i',
    ),
  },
  {
    engine: 'Microsoft SQL Server',
    pattern:
      /Unclosed quotation mark after the character string|Microsoft OLE DB Provider for SQL Server|System\.Data\.SqlClient\.SqlException|\[SQL Server\]|Incorrect syntax near|RequestError: (?:Incorrect syntax|Unclosed quotation)/i,
  },
  { engine: 'Oracle', pattern: /\bORA-0(?:0933|1756|0921|1740)\b|quoted string not properly terminated|oracle\.jdbc/i },
  // The driver is named, not the engine: PDO's SQLSTATE and exception name, a mysql2 error body's field.
  { engine: 'PDO', pattern: /Uncaught PDOException|SQLSTATE\[HY000\]|"sqlMessage"\s*:/i },
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

/** A boolean payload pair of one SQL context. */
interface BooleanPair {
  context: string;
  isTrue: string;
  isFalse: string;
}

/**
 * AND pairs: a true condition that must answer like the original, a false one that must not.
 * They work where the original value selects something (a row, a page).
 */
const AND_PAIRS: BooleanPair[] = [
  { context: 'string', isTrue: "' AND '1'='1", isFalse: "' AND '1'='2" },
  { context: 'numeric', isTrue: ' AND 1=1', isFalse: ' AND 1=2' },
];

/**
 * OR pairs, for a value that selects nothing (no row): the true condition selects every row and
 * answers differently from the original, the false one answers like it. Sent on GET requests
 * only: in an UPDATE or DELETE behind a form, a true OR would reach every row.
 */
const OR_PAIRS: BooleanPair[] = [
  { context: 'string', isTrue: "' OR '1'='1", isFalse: "' OR '1'='2" },
  { context: 'numeric', isTrue: ' OR 1=1', isFalse: ' OR 1=2' },
];

/** A time-based payload of one engine and SQL context, as a function of the seconds to wait (0 for the control). */
interface TimePayload {
  engine: string;
  context: string;
  payload: (seconds: number) => string;
}

/**
 * Time-based payloads per engine and context. Each waits once whatever the rows of the query
 * (checked against MariaDB 10.11 and PostgreSQL 15): MySQL's XOR form sleeps while `now()`
 * still equals `sysdate()`, so once in a WHERE however many rows, and it works inside an
 * INSERT's VALUES too; a sleep in an uncorrelated subquery is evaluated once, even when the
 * WHERE matches no row. `' AND SLEEP(n)` waits for nothing when no row matches the value and
 * `' OR SLEEP(n)` waits n seconds per row: neither is sent. SQLite has no sleep function: the
 * usual stand-in, a heavy `randomblob()` query, takes a time that depends on the server's CPU
 * (no reliable threshold) and loads it for real, so SQLite is left to the error-based and
 * boolean tests.
 */
const TIME_PAYLOADS: TimePayload[] = [
  { engine: 'MySQL/MariaDB', context: 'string', payload: (s) => `'XOR(if(now()=sysdate(),sleep(${s}),0))XOR'` },
  { engine: 'MySQL/MariaDB', context: 'numeric', payload: (s) => ` AND (SELECT 1 FROM (SELECT SLEEP(${s}))x)` },
  { engine: 'PostgreSQL', context: 'string', payload: (s) => `'||(SELECT 1 FROM pg_sleep(${s}))||'` },
  { engine: 'PostgreSQL', context: 'numeric', payload: (s) => ` AND 1=(SELECT 1 FROM pg_sleep(${s}))` },
  { engine: 'Microsoft SQL Server', context: 'string', payload: (s) => `'; WAITFOR DELAY '0:0:${s}'--` },
  { engine: 'Microsoft SQL Server', context: 'numeric', payload: (s) => `; WAITFOR DELAY '0:0:${s}'--` },
];

/**
 * Further string payloads for a request's own parameters (not its headers and cookies, tested
 * on every route): a stacked PostgreSQL query, and last `'||pg_sleep(n)--`, which sleeps once
 * per row the WHERE reads (none when the table is empty).
 */
const PARAMETER_TIME_PAYLOADS: TimePayload[] = [
  { engine: 'PostgreSQL', context: 'string', payload: (s) => `';SELECT pg_sleep(${s})--` },
  { engine: 'PostgreSQL', context: 'string', payload: (s) => `'||pg_sleep(${s})--` },
];

/** Values tried in place of the crawled one after the site's own values: a row id most tables have. */
const FIXED_VALUES = ['1'];

/** True for a value that can sit in a numeric SQL context. */
function isNumeric(value: string): boolean {
  return /^-?\d+(?:\.\d+)?$/.test(value.trim());
}

/**
 * True when a payload of this SQL context can apply to the point: a value that is not a number
 * cannot sit in a numeric context (the statement would fail already), so its numeric payloads
 * are not sent.
 */
function fitsContext(point: InjectionPoint, sqlContext: string): boolean {
  return sqlContext !== 'numeric' || isNumeric(point.value);
}

/** The point under test, the request carrying its value, and the answer that value got first. */
interface Target {
  point: InjectionPoint;
  request: InjectedRequest;
  reference: HttpExchange;
  /** How the value was chosen, for the evidence ("" for the crawled value). */
  origin: string;
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

/** The AND pairs: a true condition answers like the original (twice), a false one differently. */
async function testAndPairs(
  target: Target,
  baseline: HttpExchange,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
): Promise<boolean> {
  const { point } = target;
  for (const pair of AND_PAIRS.filter((p) => fitsContext(point, p.context))) {
    const isTrue = await send(injectPayload(point, pair.isTrue, 'append'));
    if (!sameAnswer(isTrue, baseline, [pair.isTrue])) continue;
    const isFalse = await send(injectPayload(point, pair.isFalse, 'append'));
    if (sameAnswer(isFalse, baseline, [pair.isFalse])) continue;
    // Confirmed twice: the true condition answers like the original again.
    const again = await send(injectPayload(point, pair.isTrue, 'append'));
    if (!sameAnswer(again, baseline, [pair.isTrue])) continue;
    await reportAtPoint(sqlInjectionKind, point, page, context, {
      exchange: isFalse,
      confirmation: `boolean-based (${pair.context} context)${target.origin}: ${describePoint(point)} with ${JSON.stringify(pair.isTrue)} appended answers like the original request (twice), with ${JSON.stringify(pair.isFalse)} appended it answers differently (status ${isFalse.status}, ${isFalse.body.length} bytes against ${baseline.status}, ${baseline.body.length})`,
    });
    return true;
  }
  return false;
}

/** The OR pairs: a true condition answers differently from the original (twice, alike), a false one like it (twice). */
async function testOrPairs(
  target: Target,
  baseline: HttpExchange,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
): Promise<boolean> {
  const { point } = target;
  if (point.method !== 'GET') return false;
  for (const pair of OR_PAIRS.filter((p) => fitsContext(point, p.context))) {
    const isTrue = await send(injectPayload(point, pair.isTrue, 'append'));
    // More rows, not an error page: a server error is no answer to a condition.
    if (isTrue.status >= 500 || sameAnswer(isTrue, baseline, [pair.isTrue])) continue;
    const isFalse = await send(injectPayload(point, pair.isFalse, 'append'));
    if (!sameAnswer(isFalse, baseline, [pair.isFalse])) continue;
    const trueAgain = await send(injectPayload(point, pair.isTrue, 'append'));
    if (!sameAnswer(trueAgain, isTrue, [pair.isTrue])) continue;
    const falseAgain = await send(injectPayload(point, pair.isFalse, 'append'));
    if (!sameAnswer(falseAgain, baseline, [pair.isFalse])) continue;
    await reportAtPoint(sqlInjectionKind, point, page, context, {
      exchange: isTrue,
      confirmation: `boolean-based (${pair.context} context, OR form)${target.origin}: ${describePoint(point)} with ${JSON.stringify(pair.isTrue)} appended answers differently from the original request (twice alike: status ${isTrue.status}, ${isTrue.body.length} bytes against ${baseline.status}, ${baseline.body.length}), with ${JSON.stringify(pair.isFalse)} appended it answers like the original (twice)`,
    });
    return true;
  }
  return false;
}

/** Boolean-based test of one value: the AND pairs, then (when they found nothing) the OR pairs. */
async function testBooleanBased(
  target: Target,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
): Promise<boolean> {
  // The value's answer, fetched again now: pages that change on every load are not judged.
  const baseline = await send(target.request);
  if (!sameAnswer(baseline, target.reference, [target.point.value])) return false;
  return (
    (await testAndPairs(target, baseline, page, context, send)) ||
    (await testOrPairs(target, baseline, page, context, send))
  );
}

async function testTimeBased(
  target: Target,
  payloads: readonly TimePayload[],
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
): Promise<boolean> {
  const { point } = target;
  const fitting = payloads.filter((p) => fitsContext(point, p.context));
  if (fitting.length === 0) return false;
  const baseline = await timedSend(send, target.request);
  for (const { engine, context: sqlContext, payload } of fitting) {
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
      confirmation: `time-based (${engine}, ${sqlContext} context)${target.origin} ${describeDelay(delayed, control, proof, baseline)}`,
    });
    return true;
  }
  return false;
}

/**
 * SQL injection in every injection point, request headers and site cookies included:
 * error-based (a quote appended makes a database error of MySQL/MariaDB, PostgreSQL, SQLite,
 * SQL Server or Oracle appear that the original page does not show, as the engines, the PHP,
 * Node, Java and .NET drivers and the frameworks' error pages print it), then boolean-based (a
 * true AND condition answers like the original, twice, and a false one differently; on GET
 * requests an OR pair, for a value that selects no row: the true OR answers differently, twice
 * alike, the false one like the original, twice; the payload's own echo removed before comparing,
 * status codes count; not for headers), then time-based (a sleep of MySQL/MariaDB, PostgreSQL or
 * SQL Server that waits once whatever the rows delays the answer past the original's time, a
 * sleep of 0 does not, and the delay repeats). When the crawled value finds nothing, the values
 * the site itself uses for the parameter name and `1` are tried in its place: those that answer
 * differently from it (they reach other code: a row exists) get the boolean tests and the
 * numeric payloads again. Numeric-context payloads go only to numeric values. One finding per point.
 */
export function createSqlInjectionCheck(): PageCheck {
  const active = createActiveCheck({
    id: sqlInjectionCheckId,
    locations: allLocations,
    async test(point, page, context, send) {
      if (await testErrorBased(point, page, context, send)) return;
      const target: Target = { point, request: baselineRequest(point), reference: page.exchange, origin: '' };
      // A logged header (User-Agent, Referer) goes into an INSERT, where a condition changes no content.
      if (point.location !== 'header' && (await testBooleanBased(target, page, context, send))) return;
      const timePayloads = isMetadataPoint(point) ? TIME_PAYLOADS : [...TIME_PAYLOADS, ...PARAMETER_TIME_PAYLOADS];
      if (await testTimeBased(target, timePayloads, page, context, send)) return;
      const pool = sampleValuesOf(context.session);
      if (!needsOtherValues(point, pool)) return;
      const candidates = [...pool.valuesFor(point.name, point.value), ...FIXED_VALUES];
      for (const variant of await reachingValues(point, candidates, page.exchange, send)) {
        const other: Target = {
          point: variant.point,
          request: variant.request,
          reference: variant.answer,
          origin: ` with ${JSON.stringify(variant.point.value)} as the value`,
        };
        if (await testBooleanBased(other, page, context, send)) return;
        // The string payloads wait whatever the value; a numeric value opens the numeric ones.
        if (!isNumeric(point.value) && isNumeric(variant.point.value)) {
          const numeric = TIME_PAYLOADS.filter((p) => p.context === 'numeric');
          if (await testTimeBased(other, numeric, page, context, send)) return;
        }
      }
    },
  });
  return {
    id: active.id,
    async inspect(page, context) {
      sampleValuesOf(context.session).observe(page);
      await active.inspect(page, context);
    },
  };
}
