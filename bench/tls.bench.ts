import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TlsReport } from '../src/core/surface/exposure-engines.ts';
import { EgressGuard } from '../src/engine/net/egress-guard.ts';
import { suiteOf } from '../src/engine/tls/cipher-suites.ts';
import { createTlsAssessor } from '../src/engine/tls/tls-assessor.ts';
import { startTlsServer, TestPki, type IssuedCertificate } from '../test/support/tls-server.ts';
import { median, printRows, requireTool } from './dns-support.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { machineInfo } from './support/report.ts';

const DAY = 86_400_000;
const rounds = Number(process.env['BENCH_TLS_ROUNDS'] ?? 5);
const STRONG = ['-no_ssl3', '-no_tls1', '-no_tls1_1', '-cipher', 'ECDHE+AESGCM:ECDHE+CHACHA20'];

/** The four servers: name, certificate, s_server options. */
interface HostSpec {
  label: string;
  name: string;
  cert: (pki: TestPki) => Promise<IssuedCertificate>;
  options: string[];
}

const hosts: HostSpec[] = [
  {
    label: 'good',
    name: 'good.test',
    cert: (pki) => pki.issue({ label: 'good', names: ['good.test'] }),
    options: STRONG,
  },
  {
    label: 'legacy',
    name: 'legacy.test',
    cert: (pki) => pki.issue({ label: 'legacy', names: ['legacy.test'] }),
    options: [
      '-no_tls1_2',
      '-no_tls1_3',
      '-cipher',
      'AES128-SHA:NULL-SHA:NULL-MD5:ADH-AES128-SHA:AECDH-AES128-SHA:@SECLEVEL=0',
    ],
  },
  {
    label: 'expired',
    name: 'expired.test',
    cert: (pki) =>
      pki.issue({
        label: 'expired',
        names: ['expired.test'],
        notBefore: new Date(Date.now() - 400 * DAY),
        notAfter: new Date(Date.now() - 10 * DAY),
      }),
    options: STRONG,
  },
  {
    label: 'self-signed',
    name: 'self.test',
    cert: (pki) => pki.issue({ label: 'self', names: ['self.test'], isSelfSigned: true, rsaBits: 1024, hash: 'SHA-1' }),
    options: [...STRONG.slice(0, 4), 'ECDHE+AESGCM:@SECLEVEL=0'],
  },
];

/** sslscan's XML mapped to our finding kinds (checkIds); what it shows that has no kind here is listed apart. */
export function sslscanKinds(xml: string): { kinds: string[]; unmapped: string[] } {
  const kinds = new Set<string>();
  const unmapped: string[] = [];
  const enabled = (type: string, version: string) =>
    new RegExp(`<protocol type="${type}" version="${version.replace('.', '\\.')}" enabled="1"`).test(xml);
  if (enabled('ssl', '2')) unmapped.push('SSLv2 enabled');
  if (enabled('ssl', '3')) kinds.add('tls-protocol-sslv3');
  if (enabled('tls', '1.0')) kinds.add('tls-protocol-tls1.0');
  if (enabled('tls', '1.1')) kinds.add('tls-protocol-tls1.1');
  const anyEnabled = /<protocol [^>]*enabled="1"/.test(xml);
  if (anyEnabled && !enabled('tls', '1.3')) kinds.add('tls-protocol-tls1.3-missing');
  const ciphers = [
    ...xml.matchAll(/<cipher [^>]*sslversion="([^"]+)"[^>]*cipher="([^"]+)"[^>]*strength="([^"]+)"/g),
  ].map((m) => ({ version: m[1] as string, name: m[2] as string, strength: m[3] as string }));
  if (
    ciphers.some(
      (c) => ['null', 'anonymous', 'weak'].includes(c.strength) || /RC4|DES|EXP|NULL|ADH|AECDH|IDEA|RC2/.test(c.name),
    )
  )
    kinds.add('tls-weak-cipher-suites-accepted');
  if (ciphers.length > 0 && !ciphers.some((c) => c.version === 'TLSv1.3' || /^(ECDHE|DHE|EDH)-/.test(c.name)))
    kinds.add('tls-no-forward-secrecy');
  if (/<expired>true<\/expired>/.test(xml)) kinds.add('tls-certificate-expired');
  if (/<not-yet-valid>true<\/not-yet-valid>/.test(xml)) kinds.add('tls-certificate-not-yet-valid');
  if (/<self-signed>true<\/self-signed>/.test(xml)) kinds.add('tls-certificate-self-signed');
  const pk = /<pk error="false" type="([^"]+)" bits="(\d+)"/.exec(xml);
  if (
    pk !== null &&
    ((/RSA|DSA/.test(pk[1] as string) && Number(pk[2]) < 2048) || (/EC/.test(pk[1] as string) && Number(pk[2]) < 256))
  )
    kinds.add('tls-certificate-weak-key');
  if (/<signature-algorithm>(md5|md2|sha1)[^<]*<\/signature-algorithm>/i.test(xml))
    kinds.add('tls-certificate-weak-signature');
  if (/<renegotiation supported="1" secure="0"/.test(xml)) unmapped.push('insecure renegotiation');
  if (/<heartbleed [^>]*vulnerable="1"/.test(xml)) unmapped.push('heartbleed');
  if (/<compression supported="1"/.test(xml)) unmapped.push('TLS compression');
  return { kinds: [...kinds].sort(), unmapped };
}

function runSslscan(sslscan: string, name: string, port: number): { ms: number; xml: string } {
  const startedAt = performance.now();
  const result = spawnSync(sslscan, ['--no-colour', '--xml=-', `--sni-name=${name}`, `127.0.0.1:${port}`], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const ms = performance.now() - startedAt;
  if (result.status !== 0) throw new Error(`sslscan failed (${result.status}): ${result.stderr}`);
  const xml = result.stdout.slice(result.stdout.indexOf('<?xml'));
  return { ms, xml };
}

async function run(ctx: BenchContext): Promise<void> {
  const sslscan = requireTool('sslscan', 'sslscan');
  requireTool('openssl', 'openssl');
  const dir = ctx.scope.tempDir('perimeter-bench-tls-');
  const pki = await TestPki.create(dir);
  const servers: Array<{ spec: HostSpec; port: number }> = [];
  for (const spec of hosts) {
    const server = await startTlsServer(await spec.cert(pki), spec.options);
    ctx.scope.defer(`stop s_server ${spec.label}`, () => server.stop());
    servers.push({ spec, port: server.port });
  }
  const assessor = createTlsAssessor({ guard: new EgressGuard(['127.0.0.0/8']), extraRootsPem: [pki.caPem] });
  const options = { certificates: true, passive: true, active: true, customHeaders: [], timeoutMs: 5000 };
  const ours = async (name: string, port: number): Promise<{ ms: number; report: TlsReport }> => {
    const startedAt = performance.now();
    const report = await assessor.assess(
      [{ address: '127.0.0.1', port, names: [name], isHttp: false }],
      options,
      AbortSignal.timeout(60_000),
    );
    return { ms: performance.now() - startedAt, report };
  };
  // One unmeasured round each (JIT, root store parsing, sslscan's page cache).
  for (const { spec, port } of servers) {
    await ours(spec.name, port);
    runSslscan(sslscan, spec.name, port);
  }
  const rows: string[][] = [];
  const results: Array<Record<string, unknown>> = [];
  let isSuperset = true;
  let isFaster = true;
  for (const { spec, port } of servers) {
    const oursMs: number[] = [];
    const theirsMs: number[] = [];
    let report: TlsReport | undefined;
    let xml = '';
    for (let i = 0; i < rounds; i += 1) {
      // Alternate who goes first, so neither always meets a warmer server.
      if (i % 2 === 0) {
        const a = await ours(spec.name, port);
        const b = runSslscan(sslscan, spec.name, port);
        oursMs.push(a.ms);
        theirsMs.push(b.ms);
        report = a.report;
        xml = b.xml;
      } else {
        const b = runSslscan(sslscan, spec.name, port);
        const a = await ours(spec.name, port);
        oursMs.push(a.ms);
        theirsMs.push(b.ms);
      }
    }
    const ourKinds = [...new Set((report?.findings ?? []).map((f) => f.checkId))].sort();
    const theirs = sslscanKinds(xml);
    const missing = theirs.kinds.filter((k) => !ourKinds.includes(k));
    const extra = ourKinds.filter((k) => !theirs.kinds.includes(k));
    // Suite by suite: every weak suite sslscan lists (by code point) must be in our evidence.
    const weakEvidence =
      report?.findings.find((f) => f.checkId === 'tls-weak-cipher-suites-accepted')?.details?.text?.[1]?.value ?? '';
    const theirWeak = [
      ...xml.matchAll(
        /<cipher [^>]*sslversion="([^"]+)"[^>]*id="(0x[0-9A-Fa-f]+)"[^>]*strength="(null|anonymous|weak)"/g,
      ),
    ].map((m) => `${m[1]} ${suiteOf(Number(m[2])).name}`);
    const missedSuites = theirWeak.filter((entry) => !weakEvidence.includes(entry.split(' ')[1] as string));
    if (missedSuites.length > 0) missing.push(`weak suites ${missedSuites.join(', ')}`);
    const ratio = median(oursMs) / median(theirsMs);
    isSuperset &&= missing.length === 0;
    isFaster &&= ratio <= 1;
    rows.push([
      spec.label,
      theirs.kinds.length.toString(),
      ourKinds.length.toString(),
      missing.length === 0 ? 'yes' : `NO: ${missing.join(', ')}`,
      median(theirsMs).toFixed(0),
      median(oursMs).toFixed(0),
      ratio.toFixed(3),
      extra.join(', ') || '-',
    ]);
    results.push({
      host: spec.label,
      sslscanWeakSuites: theirWeak,
      sslscanKinds: theirs.kinds,
      sslscanUnmapped: theirs.unmapped,
      ourKinds,
      missing,
      extra,
      sslscanMs: theirsMs,
      oursMs,
      ratio,
    });
  }
  printRows(
    `TLS assessment per host (median of ${rounds}; all assessments on: certificates, passive, active)`,
    ['host', 'sslscan kinds', 'our kinds', 'ours ⊇ sslscan', 'sslscan ms', 'ours ms', 'ours/sslscan', 'ours only'],
    rows,
  );
  // The engine's real shape: every endpoint of a run at once.
  const startedAt = performance.now();
  await assessor.assess(
    servers.map(({ spec, port }) => ({ address: '127.0.0.1', port, names: [spec.name], isHttp: false })),
    options,
    AbortSignal.timeout(60_000),
  );
  const allMs = performance.now() - startedAt;
  console.log(`all ${servers.length} hosts in one assessment: ${allMs.toFixed(0)} ms`);
  console.log(
    `target ours ⊇ sslscan on every host: ${isSuperset ? 'met' : 'MISSED'}; target ≤ 1.0× sslscan per host: ${isFaster ? 'met' : 'MISSED'}`,
  );
  mkdirSync(ctx.outDir, { recursive: true });
  const path = join(ctx.outDir, 'tls.json');
  writeFileSync(
    path,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), machine: machineInfo(), rounds, hosts: results, allHostsMs: allMs }, null, 2)}\n`,
  );
  ctx.log(`results in ${path}`);
  if (!isSuperset) throw new Error("our findings miss some of sslscan's");
}

/** Our TLS assessor next to sslscan on four local openssl s_server configurations. */
export const benchmark: Benchmark = {
  name: 'tls',
  description:
    "TLS assessment of four local openssl s_server hosts (good, legacy, expired, self-signed) vs sslscan in the same run: findings ⊇ sslscan's, time per host",
  run,
};
