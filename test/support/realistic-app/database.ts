/**
 * The realistic application's database: the machine's MariaDB (127.0.0.1:3306, root without a
 * password, database `test`), table `ra_users`, read by the SQL injection pages. The
 * vulnerable twin concatenates input into the statement, as the PHP it imitates does; the safe
 * twin binds it. Both twins only read: the table is created and filled once, idempotently.
 */
import mysql from 'mysql2/promise';

/** A row of `ra_users` as the pages print it. */
export interface UserRow {
  first_name: string;
  last_name: string;
}

/** The pages' view of the database. */
export interface AppDatabase {
  /** Runs a statement built by the page (the vulnerable twin's concatenation); throws the driver's error. */
  unsafeQuery(sql: string): Promise<UserRow[]>;
  /** The safe twin's lookup: the id bound as a parameter. */
  userById(id: number): Promise<UserRow[]>;
  close(): Promise<void>;
}

const ROWS: Array<[number, string, string]> = [
  [1, 'admin', 'admin'],
  [2, 'Gordon', 'Brown'],
  [3, 'Hack', 'Me'],
  [4, 'Pablo', 'Picasso'],
  [5, 'Bob', 'Smith'],
];

/** Where the database is; the environment can point elsewhere (PERIMETER_TEST_MARIADB=host:port). */
function endpoint(): { host: string; port: number } {
  const [host = '127.0.0.1', port = '3306'] = (process.env['PERIMETER_TEST_MARIADB'] ?? '127.0.0.1:3306').split(':');
  return { host, port: Number(port) };
}

/** Connects, creates and fills `ra_users` if needed; statements are cut after 20 s (a scanner's `OR SLEEP()` on every row). */
export async function openAppDatabase(): Promise<AppDatabase> {
  const pool = mysql.createPool({
    ...endpoint(),
    user: 'root',
    password: '',
    database: 'test',
    connectionLimit: 12,
    multipleStatements: false,
  });
  pool.on('connection', (connection) => {
    connection.query('SET SESSION max_statement_time = 20');
  });
  try {
    await pool.query(
      'CREATE TABLE IF NOT EXISTS ra_users (user_id INT PRIMARY KEY, first_name VARCHAR(32) NOT NULL, last_name VARCHAR(32) NOT NULL)',
    );
    await pool.query('INSERT IGNORE INTO ra_users (user_id, first_name, last_name) VALUES ?', [ROWS]);
  } catch (err) {
    await pool.end();
    throw new Error(
      `the realistic application needs MariaDB at ${endpoint().host}:${endpoint().port} (root, no password, database test): ${(err as Error).message}`,
    );
  }
  return {
    unsafeQuery: async (sql) => (await pool.query(sql))[0] as UserRow[],
    userById: async (id) =>
      (await pool.execute('SELECT first_name, last_name FROM ra_users WHERE user_id = ?', [id]))[0] as UserRow[],
    close: () => pool.end(),
  };
}
