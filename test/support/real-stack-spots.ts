/** The spots of the real-stack site (real-stack-site.ts): what a scanner must report where. */

/** What a scanner must report on the vulnerable twin: the SQL injection finding's location path. */
export interface RealStackSpot {
  id: string;
  /** The path and parameter of the finding's location (`/my/count?name=`, `/sq/brand?body=brand`). */
  location: string;
  /** How the flaw shows, for people reading the test. */
  description: string;
}

/** The spots of the real-stack site, one SQL injection each. */
export const realStackSpots: RealStackSpot[] = [
  {
    id: 'mariadb-express-json',
    location: '/my/api/products?category=',
    description: "mysql2 error in an Express API's JSON error body (message and ER_PARSE_ERROR code)",
  },
  {
    id: 'mariadb-php-mysqli',
    location: '/my/item.php?id=',
    description: 'PHP 8.2 uncaught mysqli_sql_exception page, numeric context',
  },
  {
    id: 'mariadb-php-pdo-post',
    location: '/my/search.php?body=q',
    description: 'PHP 8.2 uncaught PDOException SQLSTATE[42000] page, a POST form field',
  },
  {
    id: 'mariadb-row-count-or',
    location: '/my/count?name=',
    description:
      'errors swallowed, answer differs only by a row count; the sample value matches no row: only the OR pair',
  },
  {
    id: 'mariadb-time-post',
    location: '/my/track?body=ref',
    description:
      'errors swallowed, same answer whatever the rows, POST form: only a sleep that waits whatever the rows',
  },
  {
    id: 'postgres-express-page',
    location: '/pg/search?q=',
    description: "node-postgres error on Express's development error page (HTML-escaped stack)",
  },
  {
    id: 'postgres-status-only',
    location: '/pg/order?id=',
    description:
      'numeric context, errors swallowed, answer differs only by status (200/404); the sample word is no number: only with the value 1',
  },
  {
    id: 'postgres-time',
    location: '/pg/track?ref=',
    description:
      "errors swallowed, same answer whatever the rows: only a pg_sleep that waits once (a per-row '||pg_sleep(n) waits rows×n)",
  },
  {
    id: 'sqlite-express-json',
    location: '/sq/api/notes?tag=',
    description: "better-sqlite3 error in an Express API's JSON error body (SQLITE_ERROR)",
  },
  {
    id: 'sqlite-express-page',
    location: '/sq/banner?lang=',
    description: "better-sqlite3 SqliteError on Express's development error page (HTML-escaped)",
  },
  {
    id: 'sqlite-row-count-or',
    location: '/sq/stock?sku=',
    description: 'errors swallowed, answer differs only by a row count, SQLite (no sleep): only the OR pair',
  },
  {
    id: 'sqlite-crawled-value',
    location: '/sq/brand?body=brand',
    description:
      'POST form, errors swallowed, the sample word matches no row and SQLite cannot sleep: only with a value the site itself links (brand=acme)',
  },
];

/**
 * The command injection spot: a ping form that checks the value starts with an IPv4 address
 * before its shell runs, so a sample word never reaches the shell; `127.0.0.1` does.
 */
export const pingSpot: RealStackSpot = {
  id: 'ping-needs-an-address',
  location: '/net/ping?host=',
  description: 'ping form: the shell runs only for a value that starts with an IPv4 address',
};
