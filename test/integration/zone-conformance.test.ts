import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { transferZone } from '../../src/engine/dns/axfr.ts';
import { isInZone } from '../../src/engine/dns/dns-name.ts';
import { parseZone, ZoneSyntaxError, type ZoneInput, type ZoneRecord } from '../../src/engine/dns/zone-parser.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { requireProgram, runBindTool, startBind } from '../support/bind-server.ts';

/**
 * Parser conformance: every file of the corpus (test/fixtures/zones, listed in manifest.json)
 * is read by our parser and, when BIND is installed, by BIND.
 * - good: accepted; the same record set as `named-compilezone` and as an AXFR of the zone
 *   served by `named` (and, where the manifest lists them, exactly these owner names);
 * - opaque: accepted; types of the registry kept as written, so only owner names and types
 *   are compared with named-compilezone;
 * - deviations: accepted by us, refused by BIND (docs/zones.md, "Deviations from BIND");
 * - bad: refused at the line the manifest names, with its message; BIND refuses them too
 *   unless the manifest says otherwise (a deviation as well).
 * Without BIND the comparisons are skipped, saying so; our verdicts are still checked.
 */

const corpus = fileURLToPath(new URL('../fixtures/zones/', import.meta.url));

interface Manifest {
  origin: string;
  good: Array<string | { file: string; owners?: string[] }>;
  opaque: string[];
  deviations: Array<{ file: string; why: string }>;
  bad: Array<{ file: string; line: number; message: string; bindRejects: boolean }>;
}

const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8')) as Manifest;
const origin = manifest.origin;

/** Where a BIND program is, or why the comparisons that need it are skipped. */
function bindProgram(program: string): { skip: string | false } {
  try {
    requireProgram(program);
    return { skip: false };
  } catch {
    return { skip: `${program} is not installed: the comparison with BIND is skipped` };
  }
}
const compilezone = bindProgram('named-compilezone');
const named = bindProgram('named');

async function parseAll(input: ZoneInput): Promise<ZoneRecord[]> {
  const records: ZoneRecord[] = [];
  for await (const record of parseZone(input, { origin })) records.push(record);
  return records;
}

/** named-compilezone's text dump of a file (which it must accept), read back by our parser. */
async function compiled(path: string): Promise<ZoneRecord[]> {
  const result = runBindTool('named-compilezone', [
    '-k',
    'ignore',
    '-i',
    'none',
    '-q',
    '-f',
    'text',
    '-F',
    'text',
    '-o',
    '-',
    origin,
    path,
  ]);
  assert.equal(result.status, 0, `named-compilezone refused ${path}:\n${result.stderr}${result.stdout}`);
  return parseAll([Buffer.from(result.stdout, 'latin1')]);
}

function isRefusedByBind(path: string): boolean {
  return (
    runBindTool('named-compilezone', [
      '-k',
      'ignore',
      '-i',
      'none',
      '-q',
      '-f',
      'text',
      '-F',
      'text',
      '-o',
      '/dev/null',
      origin,
      path,
    ]).status !== 0
  );
}

const inZone = (records: ZoneRecord[]): ZoneRecord[] =>
  records.filter((record) => isInZone(`${record.name}.`, `${origin}.`));

/** The RRset a record belongs to: an RRSIG's set is also keyed by the type it covers, as BIND keeps it. */
function rrsetOf(record: ZoneRecord): string {
  return record.type === 'RRSIG'
    ? `${record.name} RRSIG ${record.data.slice(0, record.data.indexOf(' '))}`
    : `${record.name} ${record.type}`;
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
  for (const record of inZone(records)) {
    keys.add(`${record.name} ${record.class} ${record.type} ${record.data}`);
    const rrset = rrsetOf(record);
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
    assert.ok(
      mine.ttls.get(rrset)?.has(ttl as number),
      `${rrset}: ${source} TTL ${ttl}, ours ${[...(mine.ttls.get(rrset) ?? [])].join(',')}`,
    );
  }
}

/** Distinct `name type` pairs of the records in the zone. */
const ownersAndTypes = (records: ZoneRecord[]): string[] =>
  [...new Set(inZone(records).map((r) => `${r.name} ${r.type}`))].sort();

describe('zone corpus: good files against named-compilezone and named', () => {
  for (const entry of manifest.good) {
    const { file, owners } = typeof entry === 'string' ? { file: entry, owners: undefined } : entry;
    const path = join(corpus, 'good', file);

    it(`${file}: accepted${owners === undefined ? '' : ', with exactly the expected owner names'}`, async () => {
      const ours = await parseAll(createReadStream(path));
      assert.ok(ours.length >= 4, `${file} has ${ours.length} records`);
      if (owners !== undefined) assert.deepEqual([...new Set(ours.map((r) => r.name))].sort(), [...owners].sort());
    });

    it(`${file}: same record set as named-compilezone`, compilezone, async () => {
      assertSameZone(await parseAll(createReadStream(path)), await compiled(path), 'named-compilezone');
    });

    it(`${file}: same record set as an AXFR from named serving it`, named, async () => {
      const bind = await startBind([{ name: origin, text: readFileSync(path, 'latin1') }]);
      try {
        const transferred: ZoneRecord[] = [];
        const options = {
          server: { host: '127.0.0.1', port: bind.port },
          zone: origin,
          guard: new EgressGuard(['127.0.0.0/8']),
          resolver: { resolveTxt: async () => [], resolveAddresses: async () => [] },
        };
        for await (const record of transferZone(options)) transferred.push(record);
        assertSameZone(await parseAll(createReadStream(path)), transferred, 'AXFR');
      } finally {
        await bind.stop();
      }
    });
  }
});

describe('zone corpus: registered types kept as written', () => {
  for (const file of manifest.opaque) {
    const path = join(corpus, 'good', file);
    it(`${file}: accepted`, async () => {
      assert.ok((await parseAll(createReadStream(path))).length >= 4);
    });

    it(`${file}: same owner names and types as named-compilezone`, compilezone, async () => {
      assert.deepEqual(ownersAndTypes(await parseAll(createReadStream(path))), ownersAndTypes(await compiled(path)));
    });
  }
});

describe('zone corpus: deviations from BIND (accepted here, refused by BIND)', () => {
  for (const { file, why } of manifest.deviations) {
    const path = join(corpus, 'deviations', file);
    it(`${file}: accepted (${why})`, async () => {
      assert.ok((await parseAll(createReadStream(path))).length >= 4);
    });

    it(`${file}: named-compilezone refuses it`, compilezone, () => {
      assert.equal(
        isRefusedByBind(path),
        true,
        `named-compilezone accepted ${file}: the deviation is gone, move the file to good/`,
      );
    });
  }
});

describe('zone corpus: bad files', () => {
  for (const { file, line, message, bindRejects } of manifest.bad) {
    const path = join(corpus, 'bad', file);
    it(`${file}: fails at line ${line}`, async () => {
      await assert.rejects(parseAll(createReadStream(path)), (err: unknown) => {
        assert.ok(err instanceof ZoneSyntaxError, String(err));
        assert.equal(err.line, line, err.message);
        assert.match(err.message, new RegExp(`^line ${line}: ${message}`));
        return true;
      });
    });

    it(
      `${file}: named-compilezone ${bindRejects ? 'refuses it too' : 'accepts it (a documented deviation)'}`,
      compilezone,
      () => {
        assert.equal(
          isRefusedByBind(path),
          bindRejects,
          `named-compilezone ${bindRejects ? 'accepted' : 'refused'} ${file}`,
        );
      },
    );
  }
});

describe('zone corpus: coverage', () => {
  it('exercises every record type with a codec, DNSSEC included, and the RFC 3597 forms', async () => {
    const types = new Set<string>();
    for (const entry of manifest.good) {
      const file = typeof entry === 'string' ? entry : entry.file;
      for (const record of await parseAll(createReadStream(join(corpus, 'good', file)))) types.add(record.type);
    }
    const expected = [
      'A',
      'AAAA',
      'CNAME',
      'NS',
      'MX',
      'TXT',
      'SOA',
      'SRV',
      'PTR',
      'CAA',
      'DNAME',
      'HTTPS',
      'SVCB',
      'DS',
      'DNSKEY',
      'TYPE65280',
    ];
    expected.push(
      'RRSIG',
      'NSEC',
      'NSEC3',
      'NSEC3PARAM',
      'CDS',
      'CDNSKEY',
      'TA',
      'DLV',
      'CSYNC',
      'ZONEMD',
      'LOC',
      'URI',
      'OPENPGPKEY',
      'SMIMEA',
      'CERT',
      'DHCID',
    );
    expected.push(
      'AFSDB',
      'KX',
      'RT',
      'PX',
      'MB',
      'MG',
      'MR',
      'MINFO',
      'TALINK',
      'NSAP-PTR',
      'X25',
      'ISDN',
      'L32',
      'L64',
      'NID',
      'LP',
      'EUI48',
      'EUI64',
      'AVC',
      'RESINFO',
      'WALLET',
      'SPF',
    );
    for (const type of expected) assert.ok(types.has(type), `no ${type} record in the good corpus`);
  });
});
