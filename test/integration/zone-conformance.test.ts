import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { transferZone } from '../../src/engine/dns/axfr.ts';
import { isInZone } from '../../src/engine/dns/dns-name.ts';
import { parseZone, ZoneSyntaxError, type ZoneInput, type ZoneRecord } from '../../src/engine/dns/zone-parser.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { runBindTool, startBind } from '../support/bind-server.ts';

/**
 * Parser conformance: every file of the corpus (test/fixtures/zones) is read by our parser and
 * by BIND. Good files must give the same record set as `named-compilezone` and as an AXFR of
 * the zone served by `named`; bad files must fail at the line the manifest names (and, where
 * the manifest says so, BIND must refuse them too).
 */

const corpus = fileURLToPath(new URL('../fixtures/zones/', import.meta.url));

interface Manifest {
  origin: string;
  good: string[];
  bad: Array<{ file: string; line: number; message: string; bindRejects: boolean }>;
}

const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8')) as Manifest;
const origin = manifest.origin;

async function parseAll(input: ZoneInput): Promise<ZoneRecord[]> {
  const records: ZoneRecord[] = [];
  for await (const record of parseZone(input, { origin })) records.push(record);
  return records;
}

/**
 * The record set as BIND keeps a zone: records outside the zone dropped, duplicates merged,
 * each keyed `name class type data`, with the TTLs seen for its RRset. BIND gives one RRset a
 * single TTL (the first, or the lowest when merged), so TTLs are compared per RRset: BIND's
 * TTL must be one of ours.
 */
function recordSet(records: ZoneRecord[]): { keys: string[]; ttls: Map<string, Set<number>> } {
  const keys = new Set<string>();
  const ttls = new Map<string, Set<number>>();
  for (const record of records) {
    if (!isInZone(`${record.name}.`, `${origin}.`)) continue;
    keys.add(`${record.name} ${record.class} ${record.type} ${record.data}`);
    const rrset = `${record.name} ${record.type}`;
    const seen = ttls.get(rrset) ?? new Set<number>();
    seen.add(record.ttl);
    ttls.set(rrset, seen);
  }
  return { keys: [...keys].sort(), ttls };
}

function assertSameZone(ours: ZoneRecord[], theirs: ZoneRecord[], source: string): void {
  const mine = recordSet(ours);
  const bind = recordSet(theirs);
  assert.deepEqual(mine.keys, bind.keys, `records differ from ${source}`);
  for (const [rrset, bindTtls] of bind.ttls) {
    assert.equal(bindTtls.size, 1, `${source} gives ${rrset} one TTL`);
    const [ttl] = [...bindTtls];
    assert.ok(mine.ttls.get(rrset)?.has(ttl as number), `${rrset}: ${source} TTL ${ttl}, ours ${[...(mine.ttls.get(rrset) ?? [])].join(',')}`);
  }
}

describe('zone corpus: good files against named-compilezone and named', () => {
  for (const file of manifest.good) {
    it(`${file}: same record set as named-compilezone`, async () => {
      const path = join(corpus, 'good', file);
      const ours = await parseAll(createReadStream(path));
      assert.ok(ours.length >= 4, `${file} has ${ours.length} records`);
      const compiled = runBindTool('named-compilezone', ['-k', 'ignore', '-i', 'none', '-q', '-f', 'text', '-F', 'text', '-o', '-', origin, path]);
      assert.equal(compiled.status, 0, `named-compilezone refused ${file}:\n${compiled.stderr}${compiled.stdout}`);
      assertSameZone(ours, await parseAll([Buffer.from(compiled.stdout, 'latin1')]), 'named-compilezone');
    });

    it(`${file}: same record set as an AXFR from named serving it`, async () => {
      const path = join(corpus, 'good', file);
      const bind = await startBind([{ name: origin, text: readFileSync(path, 'latin1') }]);
      try {
        const transferred: ZoneRecord[] = [];
        const options = { server: { host: '127.0.0.1', port: bind.port }, zone: origin, guard: new EgressGuard(['127.0.0.0/8']), resolver: { resolveTxt: async () => [], resolveAddresses: async () => [] } };
        for await (const record of transferZone(options)) transferred.push(record);
        assertSameZone(await parseAll(createReadStream(path)), transferred, 'AXFR');
      } finally {
        await bind.stop();
      }
    });
  }
});

describe('zone corpus: bad files', () => {
  for (const { file, line, message, bindRejects } of manifest.bad) {
    it(`${file}: fails at line ${line}${bindRejects ? ', and BIND refuses it too' : ''}`, async () => {
      const path = join(corpus, 'bad', file);
      await assert.rejects(parseAll(createReadStream(path)), (err: unknown) => {
        assert.ok(err instanceof ZoneSyntaxError, String(err));
        assert.equal(err.line, line, err.message);
        assert.match(err.message, new RegExp(`^line ${line}: ${message}`));
        return true;
      });
      if (bindRejects) {
        const compiled = runBindTool('named-compilezone', ['-k', 'ignore', '-i', 'none', '-q', '-f', 'text', '-F', 'text', '-o', '/dev/null', origin, path]);
        assert.notEqual(compiled.status, 0, `named-compilezone accepted ${file}`);
      }
    });
  }
});

describe('zone corpus: coverage', () => {
  it('exercises every record type of the issue and the RFC 3597 forms', async () => {
    const types = new Set<string>();
    for (const file of manifest.good) for (const record of await parseAll(createReadStream(join(corpus, 'good', file)))) types.add(record.type);
    for (const type of ['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'SOA', 'SRV', 'PTR', 'CAA', 'DNAME', 'HTTPS', 'SVCB', 'DS', 'DNSKEY', 'TYPE65280']) {
      assert.ok(types.has(type), `no ${type} record in the good corpus`);
    }
  });
});
