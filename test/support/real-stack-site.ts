import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { serve, type TargetServer } from './target-site.ts';
import {
  expressErrorPage,
  expressJsonError,
  formOf,
  jsonType,
  page,
  phpArgument,
  phpUncaught,
  swallowed,
  escapeHtml,
  type Answer,
} from './real-stack-answers.ts';

/**
 * A fixture site that runs REAL SQL (issue 37, SQL injection on real stacks): queries built by
 * concatenating the request's values, against MariaDB (127.0.0.1:3306, root, database `test`,
 * through mysql2), PostgreSQL (127.0.0.1:5432, postgres, database `test`, through pg) and SQLite
 * (better-sqlite3, in memory). Its pages answer failures as real stacks do: an Express API's JSON
 * error body (`{ "error": err.message, "code": err.code }`), Express's development error page
 * (the error's stack, HTML-escaped), the page PHP 8.2 prints for an uncaught mysqli or PDO
 * exception, or a swallowed error (a generic 500, no detail); some answer differently only by a
 * row count or only by their status code. The error texts are those of the servers: nothing is
 * made up but the PHP framing. The safe twin runs the same queries with bound parameters.
 *
 * The tables are this fixture's own (`rs_` and a random suffix, so that two runs never share
 * one), created at start and dropped at stop. It is kept apart from the shared vulnerable site:
 * the other fixture tests need no database.
 */

/** Both twins of the real-stack site. */
export interface RealStackSites {
  vulnerable: TargetServer;
  safe: TargetServer;
  /** The SQL statements the vulnerable twin ran (what reached the databases), for the test's checks. */
  statements: string[];
  stop(): Promise<void>;
}

interface Databases {
  my: mysql.Pool;
  pg: pg.Pool;
  sq: Database.Database;
  /** Table names (random suffix). */
  t: { products: string; orders: string };
}

function homePage(): Answer {
  const links = [
    '/my/api/products?category=tools',
    '/my/item.php?id=1',
    '/my/search-form',
    '/my/count-form',
    '/my/track-form',
    '/pg/search?q=lamp',
    '/pg/order-form',
    '/pg/track?ref=home',
    '/sq/api/notes?tag=work',
    '/sq/banner?lang=en',
    '/sq/stock-form',
    '/sq/brand-form',
    '/net/ping-form',
    '/catalogue?brand=acme',
  ];
  return page(
    'Real stacks',
    `<ul>${links.map((l) => `<li><a href="${escapeHtml(l)}">${escapeHtml(l)}</a></li>`).join('')}</ul>`,
  );
}

/** Runs a query; the vulnerable twin's text is recorded. */
type Run<T> = (sql: string, params: unknown[]) => Promise<T>;

/** What a route handler needs: the request's values, the tables, and query runners that record the vulnerable twin's SQL. */
interface RouteContext {
  request: { method: string; url: URL; body: string; isSafe: boolean };
  isSafe: boolean;
  q: (name: string) => string;
  products: string;
  orders: string;
  myRows: Run<mysql.RowDataPacket[]>;
  pgRows: Run<Array<Record<string, unknown>>>;
  sqRows: (sql: string, params: unknown[]) => unknown[];
}

function contextOf(db: Databases, request: RouteContext['request'], record: (sql: string) => void): RouteContext {
  const { isSafe } = request;
  return {
    request,
    isSafe,
    q: (name) => request.url.searchParams.get(name) ?? '',
    products: db.t.products,
    orders: db.t.orders,
    myRows: async (sql, params) => {
      if (!isSafe) record(sql);
      const [rows] = await db.my.query<mysql.RowDataPacket[]>(sql, params);
      return rows;
    },
    pgRows: async (sql, params) => {
      if (!isSafe) record(sql);
      const result = await db.pg.query(sql, params);
      // A stacked query (`;SELECT …`) answers one result per statement: the first is the page's.
      const first = Array.isArray(result) ? (result[0] as pg.QueryResult) : result;
      return first.rows as Array<Record<string, unknown>>;
    },
    sqRows: (sql, params) => {
      if (!isSafe) record(sql);
      return db.sq.prepare(sql).all(...params);
    },
  };
}

/** The home page and the static catalogue. */
async function commonRoute(c: RouteContext): Promise<Answer | undefined> {
  const { q } = c;
  switch (c.request.url.pathname) {
    case '/':
      return homePage();
    case '/catalogue':
      // Static: the brand is only printed; its link gives the crawler a value the site knows.
      return page('Catalogue', `<p>Brand ${escapeHtml(q('brand'))}</p>`);
    default:
      return undefined;
  }
}

/** The MariaDB routes (mysql2). */
async function mariaDbRoute(c: RouteContext): Promise<Answer | undefined> {
  const { request, isSafe, q, products, myRows } = c;
  switch (c.request.url.pathname) {
    case '/my/api/products': {
      const category = q('category');
      try {
        const rows = isSafe
          ? await myRows(`SELECT name FROM ${products} WHERE category = ?`, [category])
          : await myRows(`SELECT name FROM ${products} WHERE category = '${category}'`, []);
        return { status: 200, headers: jsonType, body: JSON.stringify({ products: rows.map((r) => r['name']) }) };
      } catch (err) {
        return expressJsonError(err as Error);
      }
    }
    case '/my/item.php': {
      const id = q('id');
      const sql = isSafe
        ? `SELECT name FROM ${products} WHERE id = ?`
        : `SELECT name FROM ${products} WHERE id = ${id}`;
      try {
        if (isSafe && !/^\d+$/.test(id)) return page('Item', '<p>No such item.</p>', 404);
        const rows = await myRows(sql, isSafe ? [Number(id)] : []);
        return page(
          'Item',
          rows.length === 0 ? '<p>No such item.</p>' : `<p>${escapeHtml(String(rows[0]!['name']))}</p>`,
        );
      } catch (err) {
        return phpUncaught(
          'mysqli_sql_exception',
          (err as Error).message,
          '/var/www/html/item.php',
          8,
          `mysqli->query(${phpArgument(sql)})`,
        );
      }
    }
    case '/my/search-form':
      return page(
        'Search',
        '<form method="post" action="/my/search.php"><input name="q"><input type="submit" value="Search"></form>',
      );
    case '/my/search.php': {
      const term = formOf(request.body).get('q') ?? '';
      const sql = isSafe
        ? `SELECT name FROM ${products} WHERE name LIKE ?`
        : `SELECT name FROM ${products} WHERE name LIKE '%${term}%'`;
      try {
        const rows = await myRows(sql, isSafe ? [`%${term}%`] : []);
        return page('Search', `<p>${rows.length} result(s)</p>`);
      } catch (err) {
        const e = err as Error & { sqlState?: string; errno?: number; sqlMessage?: string };
        return phpUncaught(
          'PDOException',
          `SQLSTATE[${e.sqlState ?? 'HY000'}]: Syntax error or access violation: ${e.errno ?? 0} ${e.sqlMessage ?? e.message}`,
          '/var/www/html/search.php',
          9,
          `PDO->query(${phpArgument(sql)})`,
        );
      }
    }
    default:
      return undefined;
  }
}

/** The MariaDB routes whose errors are swallowed (mysql2). */
async function mariaDbBlindRoute(c: RouteContext): Promise<Answer | undefined> {
  const { request, q, isSafe, products, myRows } = c;
  switch (c.request.url.pathname) {
    case '/my/count-form':
      return page(
        'Count',
        '<form method="get" action="/my/count"><input name="name"><input type="submit" value="Count"></form>',
      );
    case '/my/count': {
      const name = q('name');
      try {
        const rows = isSafe
          ? await myRows(`SELECT COUNT(*) AS n FROM ${products} WHERE name = ?`, [name])
          : await myRows(`SELECT COUNT(*) AS n FROM ${products} WHERE name = '${name}'`, []);
        return page('Count', `<p>${Number(rows[0]!['n'])} product(s) found.</p>`);
      } catch {
        return swallowed();
      }
    }
    case '/my/track-form':
      return page(
        'Track',
        '<form method="post" action="/my/track"><input name="ref"><input type="submit" value="Send"></form>',
      );
    case '/my/track': {
      const ref = formOf(request.body).get('ref') ?? '';
      try {
        if (isSafe) await myRows(`SELECT COUNT(*) FROM ${products} WHERE name = ?`, [ref]);
        else await myRows(`SELECT COUNT(*) FROM ${products} WHERE name = '${ref}'`, []);
      } catch {
        // Logged and forgotten: the visitor sees the same page.
      }
      return page('Track', '<p>Thanks, noted.</p>');
    }
    default:
      return undefined;
  }
}

/** The PostgreSQL routes (pg). */
async function postgresRoute(c: RouteContext): Promise<Answer | undefined> {
  const { isSafe, q, products, orders, pgRows } = c;
  switch (c.request.url.pathname) {
    case '/pg/search': {
      const term = q('q');
      try {
        const rows = isSafe
          ? await pgRows(`SELECT name FROM ${products} WHERE name = $1`, [term])
          : await pgRows(`SELECT name FROM ${products} WHERE name = '${term}'`, []);
        return page('Search', `<p>${rows.length} result(s)</p>`);
      } catch (err) {
        return expressErrorPage(err as Error);
      }
    }
    case '/pg/order-form':
      return page(
        'Order',
        '<form method="get" action="/pg/order"><input name="id"><input type="submit" value="Look up"></form>',
      );
    case '/pg/order': {
      const id = q('id');
      try {
        if (isSafe && !/^\d+$/.test(id)) return swallowed();
        const rows = isSafe
          ? await pgRows(`SELECT id FROM ${orders} WHERE id = $1`, [Number(id)])
          : await pgRows(`SELECT id FROM ${orders} WHERE id = ${id}`, []);
        // The same page either way: only the status tells whether the order exists.
        return page('Order lookup', '<p>Order lookup.</p>', rows.length === 0 ? 404 : 200);
      } catch {
        return swallowed();
      }
    }
    case '/pg/track': {
      const ref = q('ref');
      try {
        if (isSafe) await pgRows(`SELECT COUNT(*) FROM ${products} WHERE name = $1`, [ref]);
        else await pgRows(`SELECT COUNT(*) FROM ${products} WHERE name = '${ref}'`, []);
      } catch {
        // Swallowed.
      }
      return page('Track', '<p>Thanks, noted.</p>');
    }
    default:
      return undefined;
  }
}

/** The SQLite routes (better-sqlite3). */
async function sqliteRoute(c: RouteContext): Promise<Answer | undefined> {
  const { request, isSafe, q, products, sqRows } = c;
  switch (c.request.url.pathname) {
    case '/sq/api/notes': {
      const tag = q('tag');
      try {
        const rows = isSafe
          ? sqRows(`SELECT name FROM ${products} WHERE category = ?`, [tag])
          : sqRows(`SELECT name FROM ${products} WHERE category = '${tag}'`, []);
        return { status: 200, headers: jsonType, body: JSON.stringify({ notes: rows }) };
      } catch (err) {
        return expressJsonError(err as Error);
      }
    }
    case '/sq/banner': {
      const lang = q('lang');
      try {
        const rows = isSafe
          ? sqRows(`SELECT name FROM ${products} WHERE category = ?`, [lang])
          : sqRows(`SELECT name FROM ${products} WHERE category = '${lang}'`, []);
        return page('Banner', `<p>${rows.length} banner(s)</p>`);
      } catch (err) {
        return expressErrorPage(err as Error);
      }
    }
    case '/sq/stock-form':
      return page(
        'Stock',
        '<form method="get" action="/sq/stock"><input name="sku"><input type="submit" value="Check"></form>',
      );
    case '/sq/stock': {
      const sku = q('sku');
      try {
        const rows = isSafe
          ? sqRows(`SELECT id FROM ${products} WHERE sku = ?`, [sku])
          : sqRows(`SELECT id FROM ${products} WHERE sku = '${sku}'`, []);
        return page('Stock', `<p>${rows.length} item(s) in stock.</p>`);
      } catch {
        return swallowed();
      }
    }
    case '/sq/brand-form':
      return page(
        'Brand',
        '<form method="post" action="/sq/brand"><input name="brand"><input type="submit" value="Show"></form>',
      );
    case '/sq/brand': {
      const brand = formOf(request.body).get('brand') ?? '';
      try {
        const rows = (
          isSafe
            ? sqRows(`SELECT name FROM ${products} WHERE brand = ?`, [brand])
            : sqRows(`SELECT name FROM ${products} WHERE brand = '${brand}'`, [])
        ) as Array<{ name: string }>;
        return page('Brand', `<ul>${rows.map((r) => `<li>${escapeHtml(r.name)}</li>`).join('')}</ul>`);
      } catch {
        return swallowed();
      }
    }
    default:
      return undefined;
  }
}

/**
 * What `ping -c 1 ${host}` through a shell answers, emulated (no shell runs): the address is
 * pinged, and an `;echo prmtr$((A*B))` after it prints the product, as a shell would.
 */
function pingRoute(c: RouteContext): Answer | undefined {
  if (c.request.url.pathname === '/net/ping-form')
    return page(
      'Ping',
      '<form method="get" action="/net/ping"><input name="host"><input type="submit" value="Ping"></form>',
    );
  if (c.request.url.pathname !== '/net/ping') return undefined;
  const host = c.q('host');
  const address = /^(\d{1,3}(?:\.\d{1,3}){3})(.*)$/s.exec(host);
  if (address === null) return page('Ping', '<p>Please enter an IPv4 address.</p>');
  if (c.isSafe && address[2] !== '') return page('Ping', '<p>Please enter an IPv4 address.</p>');
  const echo = /^\s*;\s*echo (\w*)\$\(\((\d+)\*(\d+)\)\)\s*$/.exec(address[2]!);
  const output = echo === null ? '' : `\n${echo[1]}${Number(echo[2]) * Number(echo[3])}`;
  return page(
    'Ping',
    `<pre>PING ${escapeHtml(address[1]!)}: 56 data bytes\n1 packets transmitted, 1 received${escapeHtml(output)}</pre>`,
  );
}

async function route(
  db: Databases,
  request: RouteContext['request'],
  record: (sql: string) => void,
): Promise<Answer | undefined> {
  const c = contextOf(db, request, record);
  return (
    (await commonRoute(c)) ??
    pingRoute(c) ??
    (await mariaDbRoute(c)) ??
    (await mariaDbBlindRoute(c)) ??
    (await postgresRoute(c)) ??
    (await sqliteRoute(c))
  );
}

const PRODUCTS: Array<[number, string, string, string, string]> = [
  [1, 'hammer', 'tools', 'acme', 'SKU-1'],
  [2, 'lamp', 'home', 'acme', 'SKU-2'],
  [3, 'drill', 'tools', 'bolt', 'SKU-3'],
];

async function createDatabases(): Promise<Databases> {
  const suffix = randomBytes(4).toString('hex');
  const t = { products: `rs_products_${suffix}`, orders: `rs_orders_${suffix}` };
  const my = mysql.createPool({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test', connectionLimit: 8 });
  const pgPool = new pg.Pool({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test', max: 8 });
  const sq = new Database(':memory:');
  const ddl = `CREATE TABLE ${t.products} (id INT PRIMARY KEY, name VARCHAR(40), category VARCHAR(40), brand VARCHAR(40), sku VARCHAR(40))`;
  const orders = `CREATE TABLE ${t.orders} (id INT PRIMARY KEY, total INT)`;
  await my.query(ddl);
  await pgPool.query(ddl);
  sq.exec(ddl);
  await pgPool.query(orders);
  for (const row of PRODUCTS) {
    await my.query(`INSERT INTO ${t.products} VALUES (?, ?, ?, ?, ?)`, row);
    await pgPool.query(`INSERT INTO ${t.products} VALUES ($1, $2, $3, $4, $5)`, row);
    sq.prepare(`INSERT INTO ${t.products} VALUES (?, ?, ?, ?, ?)`).run(...row);
  }
  await pgPool.query(`INSERT INTO ${t.orders} VALUES (1, 30), (2, 45)`);
  return { my, pg: pgPool, sq, t };
}

async function dropDatabases(db: Databases): Promise<void> {
  await db.my.query(`DROP TABLE IF EXISTS ${db.t.products}`).catch(() => undefined);
  await db.pg.query(`DROP TABLE IF EXISTS ${db.t.products}, ${db.t.orders}`).catch(() => undefined);
  db.sq.close();
  await Promise.all([db.my.end(), db.pg.end()]);
}

function serveTwin(db: Databases, isSafe: boolean, record: (sql: string) => void): Promise<TargetServer> {
  return serve('http', (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? 'GET', url, body: Buffer.concat(chunks).toString('utf8'), isSafe };
      route(db, request, record).then(
        (answer) => {
          const out = answer ?? page('Not found', '<p>Not found</p>', 404);
          if (!res.destroyed) res.writeHead(out.status, out.headers).end(req.method === 'HEAD' ? undefined : out.body);
        },
        (err: unknown) => {
          if (!res.destroyed) res.writeHead(500, { 'content-type': 'text/plain' }).end(`fixture error: ${String(err)}`);
        },
      );
    });
  });
}

/** Creates the tables and starts both twins on 127.0.0.1; `stop` closes them and drops the tables. */
export async function startRealStackSites(): Promise<RealStackSites> {
  const db = await createDatabases();
  const statements: string[] = [];
  try {
    const vulnerable = await serveTwin(db, false, (sql) => void statements.push(sql));
    const safe = await serveTwin(db, true, () => undefined);
    return {
      vulnerable,
      safe,
      statements,
      stop: async () => {
        await Promise.all([vulnerable.stop(), safe.stop()]);
        await dropDatabases(db);
      },
    };
  } catch (err) {
    await dropDatabases(db);
    throw err;
  }
}
