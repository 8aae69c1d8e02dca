import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { pathOf, scanFixture, summary, type FixtureScan } from '../support/fixture-scan.ts';
import { startRealStackSites, type RealStackSites } from '../support/real-stack-site.ts';
import { pingSpot, realStackSpots } from '../support/real-stack-spots.ts';

/** The evidence sentence of a finding. */
const textOf = (finding: FindingInput | undefined): string => finding?.details?.text?.[0]?.value ?? '';

describe('SQL injection on real stacks (MariaDB, PostgreSQL, SQLite answering as their frameworks do)', () => {
  let sites: RealStackSites;
  let vulnerable: FixtureScan;
  let safe: FixtureScan;
  const sqlOf = (scan: FixtureScan): FindingInput[] => scan.findings.filter((f) => f.checkId === 'sql-injection');
  const at = (location: string): FindingInput | undefined =>
    sqlOf(vulnerable).find((f) => pathOf(f.location) === location);

  before(async () => {
    sites = await startRealStackSites();
    [vulnerable, safe] = await Promise.all([scanFixture(sites.vulnerable), scanFixture(sites.safe)]);
  });
  after(() => sites?.stop());

  it('finds every spot once, and nothing else', () => {
    assert.equal(vulnerable.status, 'completed');
    for (const spot of realStackSpots) {
      const found = sqlOf(vulnerable).filter((f) => pathOf(f.location) === spot.location);
      assert.equal(found.length, 1, `${spot.id} at ${spot.location} (found: ${summary(sqlOf(vulnerable)).join(', ')})`);
      assert.match(textOf(found[0]), /Confirmed /);
    }
    const expected = new Set(realStackSpots.map((s) => s.location));
    assert.deepEqual(
      sqlOf(vulnerable)
        .map((f) => pathOf(f.location))
        .filter((l) => !expected.has(l)),
      [],
    );
  });

  it("recognises each stack's real error: mysql2 JSON, PHP mysqli and PDO pages, node-postgres and better-sqlite3 on Express pages", () => {
    assert.match(textOf(at('/my/api/products?category=')), /error-based.*MySQL\/MariaDB error/);
    assert.match(textOf(at('/my/item.php?id=')), /error-based.*MySQL\/MariaDB error/);
    assert.match(textOf(at('/my/search.php?body=q')), /error-based.*(?:MySQL\/MariaDB|PDO) error/);
    assert.match(
      textOf(at('/pg/search?q=')),
      /error-based.*PostgreSQL error \("(?:error: )?unterminated quoted string/,
    );
    assert.match(textOf(at('/sq/api/notes?tag=')), /error-based.*SQLite error/);
    assert.match(textOf(at('/sq/banner?lang=')), /error-based.*SQLite error/);
    // The PHP page and the JSON body really carry what the drivers raised.
    assert.match(at('/my/item.php?id=')?.response?.body ?? '', /Uncaught mysqli_sql_exception: You have an error/);
    assert.match(at('/my/api/products?category=')?.response?.body ?? '', /"code":"ER_PARSE_ERROR"/);
  });

  it('finds through OR pairs and value-independent sleeps what the AND forms cannot', () => {
    assert.match(textOf(at('/my/count?name=')), /boolean-based \(string context, OR form\)/);
    assert.match(textOf(at('/sq/stock?sku=')), /boolean-based \(string context, OR form\)/);
    assert.match(
      textOf(at('/my/track?body=ref')),
      /time-based \(MySQL\/MariaDB, string context\).*XOR\(if\(now\(\)=sysdate\(\),sleep\(4\),0\)\)XOR/,
    );
    assert.match(textOf(at('/pg/track?ref=')), /time-based \(PostgreSQL, string context\).*pg_sleep\(4\)/);
    // The sleeps ran on the crawler's sample value, which matches no row (`' AND SLEEP(n)` would not have waited).
    assert.ok(
      sites.statements.some((s) => s.includes("WHERE name = 'perimeter'XOR(if(now()=sysdate(),sleep(4),0))XOR''")),
    );
    assert.ok(sites.statements.some((s) => s.includes("WHERE name = 'home'||(SELECT 1 FROM pg_sleep(4))||''")));
  });

  it('tries the values that reach the code: 1 for a numeric id, a value the site links for the same name', () => {
    assert.match(textOf(at('/pg/order?id=')), /boolean-based \(numeric context\) with "1" as the value/);
    assert.match(textOf(at('/sq/brand?body=brand')), /boolean-based \(string context\) with "acme" as the value/);
  });

  it('gives a ping form an address, which reaches its shell where the sample word does not', () => {
    const found = vulnerable.findings.filter((f) => f.checkId === 'command-injection');
    assert.deepEqual(summary(found), [`command-injection ${pingSpot.location}`]);
    assert.match(textOf(found[0]), /by output \(with "127\.0\.0\.1" as the value\)/);
  });

  it('reports nothing on the safe twin (bound parameters, a validated address)', () => {
    assert.equal(safe.status, 'completed');
    assert.deepEqual(summary(sqlOf(safe)), []);
    assert.deepEqual(summary(safe.findings.filter((f) => f.checkId === 'command-injection')), []);
  });
});
