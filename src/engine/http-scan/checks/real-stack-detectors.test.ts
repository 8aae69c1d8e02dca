import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSerializedMarker } from './insecure-deserialization.check.ts';
import { findSqlError } from './sql-injection.check.ts';

/** The engine findSqlError names for a body, against an empty original page. */
const engineOf = (body: string): string | undefined => findSqlError(body, '')?.engine;

describe('SQL errors of current stacks', () => {
  it('recognises the texts the drivers really print (MariaDB 10.11, PostgreSQL, SQLite, read from the servers)', () => {
    // mysql2 through an Express API: { error: err.message, code: err.code }.
    assert.equal(
      engineOf(
        `{"error":"You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near ''''' at line 1","code":"ER_PARSE_ERROR"}`,
      ),
      'MySQL/MariaDB',
    );
    // A JSON body that keeps only the code and the driver's sqlMessage field.
    assert.equal(engineOf('{"code":"ER_PARSE_ERROR","errno":1064}'), 'MySQL/MariaDB');
    assert.equal(engineOf('{"sqlMessage": "Unknown column"}'), 'PDO');
    // The MariaDB connector's prefix.
    assert.equal(engineOf('SqlError: (conn=12, no: 1064, SQLState: 42000) syntax problem'), 'MySQL/MariaDB');
    // PHP 8.2 uncaught exceptions (html_errors on).
    assert.equal(
      engineOf('<br />\n<b>Fatal error</b>:  Uncaught mysqli_sql_exception: Unknown column in /var/www/html/a.php:3'),
      'MySQL/MariaDB',
    );
    assert.equal(
      engineOf('<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[42000]: Syntax error or access violation: 1064'),
      'MySQL/MariaDB',
    );
    assert.equal(
      engineOf('Uncaught PDOException: SQLSTATE[HY000]: General error: 1 near "\'": syntax error'),
      'SQLite',
    );
    assert.equal(engineOf('Uncaught PDOException: SQLSTATE[HY000]: General error: 5 database is locked'), 'PDO');
    // node-postgres: its message, on Express's escaped development page, or in JSON without the "error:" prefix.
    assert.equal(
      engineOf('<pre>error: unterminated quoted string at or near &quot;&#39;lamp&#39;&#39;&quot;<br>'),
      'PostgreSQL',
    );
    assert.equal(engineOf('{"error":"syntax error at or near \\"OR\\"","code":"42601"}'), 'PostgreSQL');
    assert.equal(engineOf('error: invalid input syntax for type integer: "1\'"'), 'PostgreSQL');
    // better-sqlite3 and sqlite3: raw, HTML-escaped, JSON-escaped.
    assert.equal(engineOf("SqliteError: unrecognized token: \"''' \""), 'SQLite');
    assert.equal(engineOf('<pre>SqliteError: unrecognized token: &quot;&#39;en&#39;&#39;&quot;<br>'), 'SQLite');
    assert.equal(engineOf('{"error":"near \\"\'\\": syntax error","code":"SQLITE_ERROR"}'), 'SQLite');
    assert.equal(engineOf('<p>near &quot;&#39;&quot;: syntax error</p>'), 'SQLite');
    // tedious/mssql.
    assert.equal(engineOf("RequestError: Incorrect syntax near 'x'."), 'Microsoft SQL Server');
    assert.equal(
      engineOf("RequestError: Unclosed quotation mark after the character string 'x'."),
      'Microsoft SQL Server',
    );
  });

  it('stays quiet on ordinary pages and on errors the original page already shows', () => {
    for (const body of [
      '<p>Welcome to the shop near the station.</p>',
      '<h1>SQL tutorial</h1><pre>SELECT * FROM users WHERE id = 1</pre>',
      '{"error":"not found","code":"E_NOT_FOUND"}',
      '<p>The parser reported a syntax error in your template.</p>',
    ])
      assert.equal(findSqlError(body, ''), undefined, body);
    const page = '<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[HY000] [2002] Connection refused';
    assert.equal(findSqlError(page, page), undefined);
  });
});

describe('serialized object markers', () => {
  const base64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');
  it('recognises each serializer raw, URL-encoded, base64 and hex', () => {
    const node = JSON.stringify({ name: 'ann', f: '_$$ND_FUNC$$_function (){ return 1; }' });
    assert.deepEqual(findSerializedMarker(encodeURIComponent(base64(node)))?.encoding, 'base64');
    assert.match(findSerializedMarker(node)?.format ?? '', /node-serialize/);
    const php = 'O:4:"Cart":2:{s:5:"items";a:0:{}s:5:"total";i:12;}';
    assert.deepEqual(findSerializedMarker(php), { format: 'PHP serialize() object', encoding: 'raw' });
    assert.equal(findSerializedMarker(encodeURIComponent(php))?.encoding, 'URL-encoded');
    assert.equal(findSerializedMarker(base64(php))?.encoding, 'base64');
    assert.equal(findSerializedMarker('a:2:{i:0;s:1:"a";i:1;s:1:"b";}')?.format, 'PHP serialize() array');
    assert.match(findSerializedMarker('rO0ABXQABGhvbWU=')?.format ?? '', /Java/);
    assert.match(findSerializedMarker('aced00057400046' + '86f6d65')?.format ?? '', /Java/);
    assert.match(findSerializedMarker('AAEAAAD/////AQAAAAAAAAAMAgAAAA==')?.format ?? '', /BinaryFormatter/);
    // pickle.dumps({'a': 1}, protocol=4)
    const pickle = Buffer.from('80049509000000000000007d948c01619496014b01732e', 'hex');
    assert.equal(base64(pickle).slice(0, 4), 'gASV');
    assert.match(findSerializedMarker(base64(pickle))?.format ?? '', /pickle/);
  });

  it('stays quiet on signed JSON, random tokens and words', () => {
    for (const value of [
      'eyJ1c2VybmFtZSI6ImFubiJ9.3q2-7w0cM8Q6h4n1v0kz3O1W3mW2Wm0lE4sYb2m8k9A',
      base64('{"items":["book"],"total":12}'),
      'a3f9c2e1b4d5e6f708192a3b4c5d6e7f',
      'Q2hlY2tvdXQgcGFnZQ==',
      'home-view',
      'O:clock "noon"',
    ])
      assert.equal(findSerializedMarker(value), undefined, value);
  });
});
