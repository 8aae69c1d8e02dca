import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { randomSource } from '../src/core/vulnerabilities/seed.service.ts';

/**
 * Generated zones for the DNS benchmarks. Deterministic (a seeded generator), so every run and
 * every tool reads the same bytes.
 */

// The seed's deterministic generator (mulberry32): the same zone on every run.
const random = randomSource;

const WORDS = [
  'www',
  'mail',
  'api',
  'cdn',
  'app',
  'vpn',
  'dev',
  'shop',
  'blog',
  'portal',
  'auth',
  'static',
  'img',
  'ftp',
  'git',
  'ci',
  'docs',
  'status',
  'admin',
  'm',
];
const REGIONS = ['eu', 'us', 'ap', 'eu-west', 'us-east', 'staging', 'prod'];

/** Writes lines to a file in large chunks and resolves with the byte count. */
async function writeLines(path: string, lines: Iterable<string>): Promise<number> {
  const out = createWriteStream(path);
  let buffer: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    buffer.push(line);
    if (buffer.length >= 4096) {
      const text = `${buffer.join('\n')}\n`;
      bytes += Buffer.byteLength(text);
      if (!out.write(text)) await once(out, 'drain');
      buffer = [];
    }
  }
  const text = buffer.length > 0 ? `${buffer.join('\n')}\n` : '';
  bytes += Buffer.byteLength(text);
  out.end(text);
  await once(out, 'finish');
  return bytes;
}

/**
 * A realistic zone of about `records` records (120,000 give about 5 MB): a hosting provider's
 * zone with hosts that have A and AAAA, aliases, mail, verification and SPF TXT records,
 * services, CAA, HTTPS, delegations with DS, written the way people write them: relative names,
 * blank owners, a few `$ORIGIN` blocks, comments, parenthesised TXT and an SOA across lines.
 */
export async function writeRealisticZone(
  path: string,
  origin: string,
  records: number,
): Promise<{ bytes: number; records: number }> {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  let count = 0;
  function* lines(): Generator<string> {
    yield `; ${origin}: generated for the perimeter DNS benchmarks`;
    yield '$TTL 3600';
    yield `@\tIN\tSOA\tns1.${origin}. hostmaster.${origin}. (`;
    yield '\t\t2024010101 ; serial\n\t\t7200 ; refresh\n\t\t3600 ; retry\n\t\t1209600 ; expire\n\t\t300 ) ; minimum';
    yield '\tIN\tNS\tns1\n\tIN\tNS\tns2.dns-provider.net.\n\tIN\tMX\t10 mx1\n\tIN\tMX\t20 mx2';
    yield '\tIN\tTXT\t"v=spf1 ip4:198.51.100.0/24 include:_spf.mail-provider.net -all"';
    yield '\tIN\tCAA\t0 issue "letsencrypt.org"';
    yield 'ns1\tIN\tA\t198.51.100.1\nmx1\tIN\tA\t198.51.100.2\nmx2\tIN\tA\t198.51.100.3';
    count = 10;
    let host = 0;
    while (count < records) {
      host += 1;
      const name = `${pick(WORDS)}-${host}.${pick(REGIONS)}`;
      const a = `198.51.${(host >> 8) & 255}.${host & 255}`;
      const kind = next();
      if (host % 5000 === 0) yield `; block ${host / 5000}`;
      if (kind < 0.3) {
        yield `${name}\t300\tIN\tA\t${a}`;
        count += 1;
      } else if (kind < 0.5) {
        yield `${name}\tIN\tA\t${a}\n\tIN\tAAAA\t2001:db8:${(host >> 16).toString(16)}:${(host & 0xffff).toString(16)}::1`;
        count += 2;
      } else if (kind < 0.65) {
        yield `${name}\tIN\tCNAME\t${pick(WORDS)}-${Math.max(1, host - 1 - Math.floor(next() * 50))}.${pick(REGIONS)}`;
        count += 1;
      } else if (kind < 0.75) {
        const token = Buffer.from(`${Math.floor(next() * 1e15)}:${host}:${Math.floor(next() * 1e15)}`)
          .toString('base64url')
          .slice(0, 43);
        yield `${name}\tIN\tA\t${a}\n\t\tTXT\t"google-site-verification=${token}"`;
        count += 2;
      } else if (kind < 0.8) {
        yield `${name}\tIN\tMX\t10 mx1\n\tIN\tMX\t20 mx2.${origin}.\n\tIN\tTXT\t"v=spf1 include:${origin} ~all"`;
        count += 3;
      } else if (kind < 0.85) {
        yield `_sip._tcp.${name}\t600\tIN\tSRV\t10 60 5060 ${name}\n${name}\tIN\tA\t${a}`;
        count += 2;
      } else if (kind < 0.88) {
        yield `${name}\tIN\tNS\tns1.${name}\n\tIN\tDS\t${host & 0xffff} 13 2 ${(host * 2654435761).toString(16).padStart(8, '0').repeat(8).slice(0, 64).toUpperCase()}\nns1.${name}\tIN\tA\t${a}`;
        count += 3;
      } else if (kind < 0.91) {
        yield `${name}\tIN\tHTTPS\t1 . alpn="h2,h3" ipv4hint=${a}\n\tIN\tA\t${a}`;
        count += 2;
      } else if (kind < 0.93) {
        yield `${name}\tIN\tCAA\t0 issue "letsencrypt.org"\n\tIN\tA\t${a}`;
        count += 2;
      } else if (kind < 0.95) {
        yield `$ORIGIN ${name}.${origin}.\n@\tIN\tA\t${a}\nwww\tIN\tCNAME\t@\napi\t60\tIN\tA\t${a} ; api\n$ORIGIN ${origin}.`;
        count += 3;
      } else if (kind < 0.97) {
        yield `${name}\tIN\tTXT\t( "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC${host.toString(36)}"\n\t\t"ANqL4dl2vYQv8fGz5rKDE0XD9hQIDAQAB" )`;
        count += 1;
      } else {
        yield `${name}.${origin}.\t900\tIN\tAAAA\t2001:db8::${(host & 0xffff).toString(16)}`;
        count += 1;
      }
    }
  }
  const bytes = await writeLines(path, lines());
  return { bytes, records: count };
}

/**
 * The lookup/transfer zone: `names` hosts `host<i>` with an A record, every third also AAAA,
 * plus the list of names to resolve (one in ten absent, answered NXDOMAIN).
 */
export async function writeLookupZone(
  zonePath: string,
  namesPath: string,
  origin: string,
  names: number,
): Promise<{ zoneRecords: number; listNames: number }> {
  let records = 3;
  function* zone(): Generator<string> {
    yield '$TTL 3600';
    yield `@ IN SOA ns1.${origin}. hostmaster.${origin}. 1 7200 3600 1209600 300`;
    yield `@ IN NS ns1.${origin}.\nns1 IN A 127.0.0.1`;
    for (let i = 0; i < names; i += 1) {
      if (i % 10 === 9) continue;
      const a = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      yield i % 3 === 0
        ? `host${i} IN A ${a}\n IN AAAA 2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`
        : `host${i} IN A ${a}`;
      records += i % 3 === 0 ? 2 : 1;
    }
  }
  await writeLines(zonePath, zone());
  await writeLines(
    namesPath,
    (function* list(): Generator<string> {
      for (let i = 0; i < names; i += 1) yield `host${i}.${origin}`;
    })(),
  );
  return { zoneRecords: records, listNames: names };
}
