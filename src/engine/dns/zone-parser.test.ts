import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseZone,
  parseZoneBatches,
  scanZoneOrigin,
  zoneRecordLimit,
  ZoneSyntaxError,
  type ParseZoneOptions,
  type ZoneRecord,
} from './zone-parser.ts';

const HEAD = '$TTL 3600\n@ SOA ns1 hostmaster 1 7200 3600 1209600 300\n';

async function parse(text: string, options: Partial<ParseZoneOptions> = {}): Promise<ZoneRecord[]> {
  const records: ZoneRecord[] = [];
  for await (const record of parseZone([text], { origin: 'example.com', ...options })) records.push(record);
  return records;
}

/** Records as `name ttl type data` lines, the SOA of HEAD left out. */
async function lines(text: string, options: Partial<ParseZoneOptions> = {}): Promise<string[]> {
  return (await parse(text, options))
    .filter((r) => r.type !== 'SOA' || !text.startsWith(HEAD))
    .map((r) => `${r.name} ${r.ttl} ${r.type} ${r.data}`);
}

async function assertError(
  text: string,
  line: number,
  message: RegExp,
  options: Partial<ParseZoneOptions> = {},
): Promise<void> {
  await assert.rejects(parse(text, options), (err: unknown) => {
    assert.ok(err instanceof ZoneSyntaxError, String(err));
    assert.equal(err.line, line, err.message);
    assert.match(err.message, message);
    return true;
  });
}

describe('zone parser: names and directives', () => {
  it('completes relative names with the origin and keeps absolute ones', async () => {
    assert.deepEqual(await lines(`${HEAD}www CNAME web\nweb CNAME host.example.net.\n@ MX 10 @\n`), [
      'www.example.com 3600 CNAME web.example.com.',
      'web.example.com 3600 CNAME host.example.net.',
      'example.com 3600 MX 10 example.com.',
    ]);
  });

  it('applies $ORIGIN, absolute or relative to the current origin', async () => {
    assert.deepEqual(await lines(`${HEAD}$ORIGIN sub\na A 192.0.2.1\n$ORIGIN other.test.\nb A 192.0.2.2\n@ NS ns\n`), [
      'a.sub.example.com 3600 A 192.0.2.1',
      'b.other.test 3600 A 192.0.2.2',
      'other.test 3600 NS ns.other.test.',
    ]);
  });

  it('reuses the previous owner for a blank owner, across directives', async () => {
    assert.deepEqual(await lines(`${HEAD}a A 192.0.2.1\n  A 192.0.2.2\n$ORIGIN x.example.com.\n\tTXT "still a"\n`), [
      'a.example.com 3600 A 192.0.2.1',
      'a.example.com 3600 A 192.0.2.2',
      'a.example.com 3600 TXT "still a"',
    ]);
  });

  it('lower-cases names and escapes special bytes in canonical form', async () => {
    assert.deepEqual(
      await lines(
        `${HEAD}WWW.Sub A 192.0.2.1\nx\\.y A 192.0.2.2\na\\065\\032b A 192.0.2.3\n*.w A 192.0.2.4\na@b CNAME T\\@X.example.NET.\n`,
      ),
      [
        'www.sub.example.com 3600 A 192.0.2.1',
        'x\\.y.example.com 3600 A 192.0.2.2',
        'aa\\032b.example.com 3600 A 192.0.2.3',
        '*.w.example.com 3600 A 192.0.2.4',
        'a\\@b.example.com 3600 CNAME t\\@x.example.net.',
      ],
    );
  });

  it('refuses $INCLUDE, naming the line, without reading anything', async () => {
    await assertError(
      `${HEAD}$INCLUDE /etc/passwd\n`,
      3,
      /\$INCLUDE is not allowed: the zone file must be self-contained/,
    );
  });

  it('refuses unknown directives', async () => {
    await assertError(`${HEAD}$FOO bar\n`, 3, /unknown directive "\$FOO"/);
    await assertError(`$TTL\n`, 1, /\$TTL needs a TTL/);
    await assertError(`$ORIGIN a. b.\n`, 1, /\$ORIGIN takes only a domain name/);
  });

  it('refuses malformed names', async () => {
    await assertError(`${HEAD}a..b A 192.0.2.1\n`, 3, /empty label/);
    await assertError(`${HEAD}${'x'.repeat(64)} A 192.0.2.1\n`, 3, /label longer than 63 bytes/);
    await assertError(`${HEAD}${Array(9).fill('y'.repeat(30)).join('.')} A 192.0.2.1\n`, 3, /longer than 255 bytes/);
    await assertError(`${HEAD}"quoted" A 192.0.2.1\n`, 3, /owner name must not be quoted/);
    await assertError(`  A 192.0.2.1\n`, 1, /first record has no owner name/);
  });
});

describe('zone parser: TTL and class', () => {
  it('reads TTL units, summed, in any case', async () => {
    assert.deepEqual(
      await lines(`${HEAD}a 1h30m A 192.0.2.1\nb 1W A 192.0.2.2\nc 1h1h A 192.0.2.3\nd 0 A 192.0.2.4\n`),
      [
        'a.example.com 5400 A 192.0.2.1',
        'b.example.com 604800 A 192.0.2.2',
        'c.example.com 7200 A 192.0.2.3',
        'd.example.com 0 A 192.0.2.4',
      ],
    );
  });

  it('takes TTL and class in either order, and CLASSnnn', async () => {
    const records = await parse(`${HEAD}a IN 60 A 192.0.2.1\nb 70 IN A 192.0.2.2\nc CLASS1 TYPE1 192.0.2.3\n`);
    assert.deepEqual(
      records.slice(1).map((r) => [r.name, r.ttl, r.class, r.type]),
      [
        ['a.example.com', 60, 'IN', 'A'],
        ['b.example.com', 70, 'IN', 'A'],
        ['c.example.com', 3600, 'IN', 'A'],
      ],
    );
  });

  it('follows $TTL, then the last explicit TTL when there is no $TTL (RFC 1035)', async () => {
    assert.deepEqual(
      await lines('a 100 A 192.0.2.1\nb A 192.0.2.2\n$TTL 50\nc A 192.0.2.3\nd 10 A 192.0.2.4\ne A 192.0.2.5\n'),
      [
        'a.example.com 100 A 192.0.2.1',
        'b.example.com 100 A 192.0.2.2',
        'c.example.com 50 A 192.0.2.3',
        'd.example.com 10 A 192.0.2.4',
        'e.example.com 50 A 192.0.2.5',
      ],
    );
  });

  it('uses the SOA minimum when nothing gives a TTL, and keeps it as the default, as BIND does', async () => {
    assert.deepEqual(await lines('@ SOA ns hm 1 2 3 4 300\nns 100 A 192.0.2.1\nb A 192.0.2.2\n'), [
      'example.com 300 SOA ns.example.com. hm.example.com. 1 2 3 4 300',
      'ns.example.com 100 A 192.0.2.1',
      'b.example.com 300 A 192.0.2.2',
    ]);
  });

  it('uses the caller default TTL before any $TTL', async () => {
    assert.deepEqual(await lines('a A 192.0.2.1\n', { defaultTtl: 42 }), ['a.example.com 42 A 192.0.2.1']);
  });

  it('reads TTLs above 2^31-1 as 0 and refuses those above 2^32-1', async () => {
    assert.deepEqual(await lines(`${HEAD}a 2147483648 A 192.0.2.1\n`), ['a.example.com 0 A 192.0.2.1']);
    await assertError(`${HEAD}a 4294967296 A 192.0.2.1\n`, 3, /TTL "4294967296" is out of range/);
    await assertError(`${HEAD}a 1h30 A 192.0.2.1\n`, 3, /unknown record type "1h30"/);
  });

  it('refuses a record without any TTL source, and another class than the zone', async () => {
    await assertError('a A 192.0.2.1\n', 1, /no TTL: give the record a TTL or put a \$TTL line before it/);
    await assertError(`${HEAD}a CH A 192.0.2.1\n`, 3, /class CH does not match the zone class IN/);
  });
});

describe('zone parser: record types in canonical form', () => {
  const cases: Array<[string, string]> = [
    ['a A 192.0.2.1', 'A 192.0.2.1'],
    ['a AAAA 2001:DB8:0:0:0:0:0:1', 'AAAA 2001:db8::1'],
    ['a AAAA ::ffff:192.0.2.1', 'AAAA ::ffff:c000:201'],
    ['a AAAA 1:0:0:1:0:0:0:1', 'AAAA 1:0:0:1::1'],
    ['a NS ns.example.net.', 'NS ns.example.net.'],
    ['a PTR host', 'PTR host.example.com.'],
    ['a DNAME target.example.net.', 'DNAME target.example.net.'],
    ['a MX 010 mail', 'MX 10 mail.example.com.'],
    ['a TXT "v=spf1 -all" second "third one"', 'TXT "v=spf1 -all" "second" "third one"'],
    [
      'a TXT "caf\\195\\169" "tab\\009" "q\\"uote" back\\\\slash',
      'TXT "caf\\195\\169" "tab\\009" "q\\"uote" "back\\\\slash"',
    ],
    ['a TXT ""', 'TXT ""'],
    ['a SOA ns hm ( 2024 1h 15m 2w 1d )', 'SOA ns.example.com. hm.example.com. 2024 3600 900 1209600 86400'],
    ['_sip._tcp SRV 10 20 5060 sip', 'SRV 10 20 5060 sip.example.com.'],
    ['a CAA 0 issue "letsencrypt.org"', 'CAA 0 issue "letsencrypt.org"'],
    ['a CAA 128 iodef mailto:sec@example.com', 'CAA 128 iodef "mailto:sec@example.com"'],
    [
      'a HTTPS 1 . alpn=h2,h3 port=443 ipv4hint=192.0.2.1,192.0.2.2',
      'HTTPS 1 . alpn="h2,h3" port=443 ipv4hint=192.0.2.1,192.0.2.2',
    ],
    ['a SVCB 0 svc.example.net.', 'SVCB 0 svc.example.net.'],
    [
      'a SVCB 16 foo ipv6hint=2001:db8::1 key65000="x y" no-default-alpn alpn="h2" mandatory=alpn,ipv6hint',
      'SVCB 16 foo.example.com. mandatory=alpn,ipv6hint alpn="h2" no-default-alpn ipv6hint=2001:db8::1 key65000="x y"',
    ],
    ['a HTTPS 1 . ech=AEj+DQBE alpn="a\\\\\\\\,b,c"', 'HTTPS 1 . alpn="a\\\\\\\\,b,c" ech=AEj+DQBE'],
    [
      'a DS 12345 8 2 49fd46e6c4b45c55d4ac69cbd3cd34ac 1afe51de49fd46e6c4b45c55d4ac69cb',
      'DS 12345 8 2 49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE49FD46E6C4B45C55D4AC69CB',
    ],
    [
      'a DS 1 RSASHA256 1 0123456789abcdef0123456789abcdef01234567',
      'DS 1 8 1 0123456789ABCDEF0123456789ABCDEF01234567',
    ],
    [
      'a DNSKEY 257 3 13 ( mdsswUyr3DPW132mOi8V9xESWE8jTo0d\n xbjjmc/v5JBKCUSk0lFSwTDdn2DQpUrrnI9LkNKw2F+9NTjhY+2zTg== )',
      'DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxbjjmc/v5JBKCUSk0lFSwTDdn2DQpUrrnI9LkNKw2F+9NTjhY+2zTg==',
    ],
    ['a HINFO "PC" "Linux"', 'HINFO "PC" "Linux"'],
    ['a SSHFP 4 2 abcdef00', 'SSHFP 4 2 ABCDEF00'],
    ['a TLSA 3 1 1 00ff', 'TLSA 3 1 1 00FF'],
    ['a NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp', 'NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp.example.com.'],
    ['a TYPE65280 \\# 4 0A000001', 'TYPE65280 \\# 4 0A000001'],
    ['a TYPE65281 \\# 0', 'TYPE65281 \\# 0'],
    ['a A \\# 4 C0000201', 'A 192.0.2.1'],
    ['a TYPE16 \\# 6 05 68656c6c6f', 'TXT "hello"'],
    ['a LOC 52 22 23 N 4 53 32.5 W 10', 'LOC 52 22 23.000 N 4 53 32.500 W 10.00m 1m 10000m 10m'],
    ['a WKS 192.0.2.1 tcp ( smtp "x y" )', 'WKS 192.0.2.1 tcp smtp "x y"'],
    ['a APL', 'APL '],
    ['a DSYNC \\# 2 abcd', 'DSYNC \\# 2 ABCD'],
  ];
  for (const [line, expected] of cases) {
    it(`reads ${line.split(' ')[1]}: ${line.slice(2, 60)}`, async () => {
      const records = await parse(`${HEAD}${line}\n`);
      const last = records[records.length - 1] as ZoneRecord;
      assert.equal(`${last.type} ${last.data}`, expected);
    });
  }

  const bad: Array<[string, RegExp]> = [
    ['a A 192.0.2', /bad IPv4 address "192.0.2"/],
    ['a A 01.2.3.4', /bad IPv4 address/],
    ['a A 192.0.2.1 192.0.2.2', /unexpected "192.0.2.2" after the record data/],
    ['a AAAA 2001:db8::1::2', /bad IPv6 address/],
    ['a MX 10', /missing exchange/],
    ['a MX 65536 mx', /preference 65536 is out of range/],
    ['a TXT', /missing text/],
    [`a TXT "${'x'.repeat(256)}"`, /character string longer than 255 bytes/],
    ['a TXT "\\256"', /bad escape \\256/],
    ['a SRV 1 2 mail', /port must be a number/],
    ['a CAA 0 "issue" x', /tag must not be quoted/],
    ['a DS 1 8 2 abcd', /digest type 2 needs 32 bytes, got 2/],
    ['a DS 1 8 1 abc', /bad hex in digest/],
    ['a DNSKEY 257 3 8 AwEAAQ', /bad base64 in public key/],
    ['a SVCB 1 . mandatory=port', /mandatory lists port, which is missing/],
    ['a SVCB 1 . port=1 port=2', /parameter port appears twice/],
    ['a SVCB 1 . colour=red', /unknown SVCB parameter "colour"/],
    ['a TYPE65280 \\# 4 0A0000', /RFC 3597 data has 3 bytes, the length says 4/],
    ['a A \\# 3 0A0000', /RFC 3597 data is not valid A data/],
    ['a LOC \\# 2 00ab', /RFC 3597 data is not valid LOC data/],
    ['a TYPE65280 0A000001', /type TYPE65280 is only accepted in the RFC 3597 form/],
    ['a FOO bar', /unknown record type "FOO"/],
    ['a AXFR x', /type AXFR cannot appear in a zone file/],
    ['a TYPE0 \\# 0', /type TYPE0 cannot appear in a zone file/],
    ['a TKEY \\# 0', /type TKEY cannot appear in a zone file/],
    ['a NXNAME \\# 0', /type NXNAME cannot appear in a zone file/],
    ['a TYPE200 \\# 0', /type TYPE200 cannot appear in a zone file/],
  ];
  for (const [line, message] of bad) {
    it(`refuses ${line.slice(2, 50)}`, async () => {
      await assertError(`${HEAD}${line}\n`, 3, message);
    });
  }
});

describe('zone parser: $GENERATE (checked against named-compilezone in zone-conformance.test.ts)', () => {
  it('expands a range, with a step, into records of the current origin', async () => {
    assert.deepEqual(await lines(`${HEAD}$GENERATE 1-3 host$ A 192.0.2.$\n$GENERATE 0-10/5 $.rev PTR h-$\n`), [
      'host1.example.com 3600 A 192.0.2.1',
      'host2.example.com 3600 A 192.0.2.2',
      'host3.example.com 3600 A 192.0.2.3',
      '0.rev.example.com 3600 PTR h-0.example.com.',
      '5.rev.example.com 3600 PTR h-5.example.com.',
      '10.rev.example.com 3600 PTR h-10.example.com.',
    ]);
  });

  it('applies ${offset,width,base} in every base, nibbles included, as BIND prints them', async () => {
    assert.deepEqual(
      await lines(
        `${HEAD}$GENERATE 250-250 a\${-1}-\${0,4}-\${0,0,o}-\${1,3,x}-\${2,3,X} TXT "\${0,5,n} \${0,0,N} \${-251,0,x}"\n`,
      ),
      ['a249-0250-372-0fb-0fc.example.com 3600 TXT "a.f.0" "A.F" "ffffffff"'],
    );
  });

  it("keeps BIND's quirks: an offset carries to the next plain $, a modifier reuses the fields a later one omits, text after the range is ignored", async () => {
    assert.deepEqual(
      await lines(`${HEAD}$GENERATE 1-2x h\${10}-$ A 192.0.2.$\n$GENERATE 1-1 m\${1,2,x}-\${3,4,q} A 192.0.2.1\n`),
      [
        'h11-11.example.com 3600 A 192.0.2.1',
        'h12-12.example.com 3600 A 192.0.2.2',
        'm02-0004.example.com 3600 A 192.0.2.1',
      ],
    );
  });

  it('keeps escaped and doubled dollars literal, reads quoted data again as record data, and takes TTL and class in either order', async () => {
    assert.deepEqual(
      await lines(
        `${HEAD}$GENERATE 1-1 d\\$-$$-$ 60 IN MX "10 mx$ ; comment"\n$GENERATE 2-2 t$ IN 120 TXT "\\$ $$ \\"q$\\""\n`,
      ),
      ['d\\$-\\$-1.example.com 60 MX 10 mx1.example.com.', 't2.example.com 120 TXT "$" "$" "q2"'],
    );
  });

  it('leaves the owner a blank owner repeats, and takes the last explicit TTL without $TTL', async () => {
    const text =
      '@ 600 SOA ns1 hm 1 2 3 4 5\nwww A 192.0.2.80\n$GENERATE 1-1 g$ A 192.0.2.$\n  AAAA ::1\n$GENERATE 1-1 e$ 60 A 192.0.2.$\nlast A 192.0.2.9\n';
    assert.deepEqual(
      (await parse(text)).map((r) => `${r.name} ${r.ttl} ${r.type}`),
      [
        'example.com 600 SOA',
        'www.example.com 600 A',
        'g1.example.com 600 A',
        'www.example.com 600 AAAA',
        'e1.example.com 60 A',
        'last.example.com 60 A',
      ],
    );
  });

  it('refuses malformed $GENERATE lines with the zone-file error naming the line', async () => {
    await assertError(`${HEAD}$GENERATE 5-1 h$ A 192.0.2.1\n`, 3, /\$GENERATE: invalid range "5-1"/);
    await assertError(`${HEAD}$GENERATE 1-5/0 h$ A 192.0.2.1\n`, 3, /\$GENERATE: invalid range "1-5\/0"/);
    await assertError(`${HEAD}$GENERATE h$ A 192.0.2.1\n`, 3, /\$GENERATE: invalid range "h\$"/);
    await assertError(`${HEAD}\n$GENERATE 1-2 h\${x} A 192.0.2.1\n`, 4, /\$GENERATE: malformed modifier "\$\{x\}"/);
    await assertError(`${HEAD}$GENERATE 1-2 h\${0,200} A 192.0.2.1\n`, 3, /\$GENERATE: the number does not fit/);
    await assertError(`${HEAD}$GENERATE 1-2 h$ MX 10 mx$\n`, 3, /\$GENERATE: unexpected "mx\$" after the record data/);
    await assertError(`${HEAD}$GENERATE 1-2 h$ A\n`, 3, /\$GENERATE: missing the record data/);
    await assertError(`${HEAD}$GENERATE 1-2\n`, 3, /\$GENERATE needs a range, an owner, a type and the record data/);
    await assertError(`${HEAD}$GENERATE 1-2 "h$" A 192.0.2.1\n`, 3, /the owner \(lhs\) must not be quoted/);
    await assertError(`${HEAD}$GENERATE 1-2 h$ CH A 192.0.2.1\n`, 3, /class CH does not match the zone class IN/);
    await assertError(`${HEAD}$GENERATE 1-2 h$ ANY x\n`, 3, /type ANY cannot appear in a zone file/);
    await assertError(`${HEAD}$GENERATE 254-256 h$ A 192.0.2.$\n`, 3, /bad IPv4 address "192.0.2.256"/);
    await assertError(`$GENERATE 1-2 h$ A 192.0.2.$\n`, 1, /no TTL: give the \$GENERATE line a TTL/);
  });

  it('counts generated records toward the record limit, refusing a range that would pass it before expanding it', async () => {
    const three = `${HEAD}a A 192.0.2.1\nb A 192.0.2.2\n`;
    assert.equal((await parse(`${three}$GENERATE 1-2 g$ A 192.0.2.$\n`, { maxRecords: 5 })).length, 5);
    await assertError(
      `${three}$GENERATE 1-3 g$ A 192.0.2.$\n`,
      5,
      /the zone file holds more than 5 records, the most one zone file may hold \(this \$GENERATE adds 3\)/,
      { maxRecords: 5 },
    );
    await assertError(
      `${three}$GENERATE 1-2 g$ A 192.0.2.$\nc A 192.0.2.3\n`,
      6,
      /the zone file holds more than 5 records/,
      { maxRecords: 5 },
    );
    // The default limit: refused at once, nothing of the 10 million records expanded.
    const started = Date.now();
    await assertError(
      `${HEAD}$GENERATE 1-${zoneRecordLimit} g$ A 192.0.2.1\n`,
      3,
      new RegExp(`more than ${zoneRecordLimit} records`),
    );
    assert.ok(Date.now() - started < 2000);
  });

  it('streams a long range in batches of at most 1000 records', async () => {
    const sizes: number[] = [];
    for await (const batch of parseZoneBatches([`${HEAD}$GENERATE 1-2500 g$ A 192.0.2.1\n`], { origin: 'example.com' }))
      sizes.push(batch.length);
    assert.deepEqual(sizes, [1000, 1000, 501]);
  });
});

describe('zone parser: the zone a file names', () => {
  const scan = async (chunks: string[]) => {
    const found = await scanZoneOrigin(
      (async function* () {
        for (const chunk of chunks) yield Buffer.from(chunk);
      })(),
    );
    const replayed: string[] = [];
    for await (const chunk of found.input) replayed.push(chunk.toString());
    return { origin: found.origin, replayed: replayed.join('') };
  };

  it('is the first $ORIGIN, or the first SOA owner, whichever comes first, not the root', async () => {
    assert.equal(
      (await scan(['$TTL 300\n$ORIGIN Example.NET.\n@ SOA ns1 hm 1 2 3 4 5\n$ORIGIN sub.example.net.\n'])).origin,
      'example.net',
    );
    assert.equal(
      (await scan(['$TTL 300\nexample.net SOA ns1 hm 1 2 3 4 5\n$ORIGIN sub.example.net.\n'])).origin,
      'example.net',
    );
    assert.equal(
      (await scan(['$ORIGIN .\n$TTL 300\nexample.org IN SOA ns1 hm 1 2 3 4 5\n\tNS ns1\n$ORIGIN example.org.\n']))
        .origin,
      'example.org',
    );
    assert.equal(
      (await scan(['$TTL 300\na.example.com. A 192.0.2.1\n', '$ORIGIN example', '.com.\n'])).origin,
      'example.com',
    );
    assert.equal((await scan(['$TTL 300\n@ SOA ns1 hm 1 2 3 4 5\nwww.example.com. A 192.0.2.1\n'])).origin, undefined);
    assert.equal((await scan(['$TTL 300\nwww.example.com. A 192.0.2.1\n'])).origin, undefined);
  });

  it('gives the whole input back, whether it stopped early, read to the end, or met a syntax error', async () => {
    for (const chunks of [
      ['$ORIGIN example.net.\n', 'www 300 A 192.0.2.1\n', 'mail 300 A 192.0.2.2\n'],
      ['a.b. 300 A 192.0.2.1\n', 'c.d. 300 A 192.0.2.2'],
      ['x 300 A 999.0.0.1\n', '$ORIGIN example.net.\n'],
    ]) {
      const found = await scan(chunks);
      assert.equal(found.replayed, chunks.join(''));
    }
    assert.equal(
      (await scan(['x 300 A 999.0.0.1\n$ORIGIN example.net.\n'])).origin,
      undefined,
      'the parse reports the error; nothing is named',
    );
  });
});

describe('zone parser: streaming and errors', () => {
  it('names the line inside a multi-line record where the fault is', async () => {
    await assertError(`${HEAD}x SOA ns hm (\n  1 ; serial\n  2h 1h\n  bad 5m )\n`, 6, /bad expire "bad"/);
  });

  it('names the first faulty line even when a later line of the same chunk cannot be tokenized', async () => {
    await assertError(`${HEAD}a A 300.0.0.1\nb TXT "open\n`, 3, /bad IPv4 address/);
  });

  it('yields records chunk by chunk, and the same records for any chunking', async () => {
    const text = `${HEAD}${Array.from({ length: 200 }, (_, i) => `h${i} A 10.0.${i >> 8}.${i & 255}\n`).join('')}`;
    const bytes = Buffer.from(text);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 97) }, (_, i) => bytes.subarray(i * 97, (i + 1) * 97));
    const batches: number[] = [];
    const streamed: ZoneRecord[] = [];
    for await (const batch of parseZoneBatches(chunks, { origin: 'example.com.' })) {
      batches.push(batch.length);
      streamed.push(...batch);
    }
    assert.ok(batches.length > 10, `batches: ${batches.length}`);
    assert.deepEqual(streamed, await parse(text));
    assert.equal(streamed.length, 201);
  });

  it('reads UTF-8 text given as strings or bytes alike, and skips a byte order mark', async () => {
    const text = `\ufeff${HEAD}a TXT "café"\n`;
    const fromString = await parse(text);
    const fromBytes: ZoneRecord[] = [];
    for await (const record of parseZone([Buffer.from(text, 'utf8')], { origin: 'example.com' }))
      fromBytes.push(record);
    assert.deepEqual(fromString, fromBytes);
    assert.equal(fromString[1]?.data, '"caf\\195\\169"');
  });

  it('refuses an invalid origin before reading', async () => {
    await assert.rejects(parse('a A 192.0.2.1\n', { origin: 'a..b' }), /invalid zone origin "a..b"/);
  });
});
