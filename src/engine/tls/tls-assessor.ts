import { setMaxListeners } from 'node:events';
import { isIP } from 'node:net';
import type {
  TlsAssessmentOptions,
  TlsAssessor,
  TlsEndpointReport,
  TlsReport,
  TlsTarget,
} from '../../core/surface/exposure-engines.ts';
import type { FindingInput } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { EgressGuard } from '../net/egress-guard.ts';
import { assessChain, certificateSummary, parseChain } from './certificate-checks.ts';
import { legacySuites, tls13Suites } from './cipher-suites.ts';
import { protocolName, protocolVersions } from './client-hello.ts';
import { createLimiter, type ProbeContext } from './handshake-probe.ts';
import { ordinaryHandshake, type OrdinaryHandshake } from './ordinary-handshake.ts';
import { passiveFindings } from './passive-checks.ts';
import { describeOutcome, probeRunner, runActiveProbes, type ActiveProbeResult } from './protocol-probes.ts';
import { buildTlsFinding, type TlsFindingKind } from './tls-findings.ts';
import { createTrustStore } from './trust-store.ts';

/** What the assessor needs. */
export interface TlsAssessorDeps {
  guard: EgressGuard;
  /** PEM roots trusted besides Node's bundled Mozilla roots (tests: their own CA). */
  extraRootsPem?: string[];
  /** Connections open at once over the whole assessment (default 32). */
  maxConnections?: number;
  /** The clock certificates are judged by (default: now). */
  now?: () => Date;
}

/** Findings keyed by checkId and location: a later report of the same kind replaces an earlier one. */
type FindingSet = Map<string, FindingInput>;

function add(findings: FindingSet, finding: FindingInput): void {
  findings.set(`${finding.checkId}\u0000${finding.location}`, finding);
}

const PROTOCOL_KINDS: Array<[number, TlsFindingKind]> = [
  [protocolVersions.SSLv3, 'sslv3'],
  [protocolVersions.TLSv1, 'tls10'],
  [protocolVersions['TLSv1.1'], 'tls11'],
];

/** The Host header of the HSTS request: the name, with the port unless 443, IPv6 literals bracketed. */
function hostHeader(name: string, port: number): string {
  const host = isIP(name) === 6 ? `[${name}]` : name;
  return port === 443 ? host : `${host}:${port}`;
}

function activeFindings(result: ActiveProbeResult, host: string, port: number): FindingInput[] {
  const out: FindingInput[] = [];
  const facts = (observation: string, evidence: string) => ({ host, port, observation, evidence });
  for (const [version, kind] of PROTOCOL_KINDS) {
    if (!result.accepted.includes(version)) continue;
    out.push(
      buildTlsFinding(
        kind,
        facts(
          `${host}:${port} accepts ${protocolName(version)} when it is offered alone.`,
          result.protocolEvidence.get(version) ?? '',
        ),
      ),
    );
  }
  if (result.accepted.length > 0 && !result.accepted.includes(protocolVersions['TLSv1.3'])) {
    const accepted = result.accepted.map(protocolName).join(', ');
    out.push(
      buildTlsFinding(
        'no-tls13',
        facts(
          `${host}:${port} refuses TLS 1.3; it accepts ${accepted}.`,
          result.protocolEvidence.get(protocolVersions['TLSv1.3']) ?? '',
        ),
      ),
    );
  }
  if (result.weakSuites.length > 0) {
    const lines = result.weakSuites.map(
      (w) => `${protocolName(w.version)}: ${w.suites.map((s) => `${s.name} (${s.weakness})`).join(', ')}`,
    );
    const names = new Set(result.weakSuites.flatMap((w) => w.suites.map((s) => s.name)));
    out.push(
      buildTlsFinding(
        'weak-suites',
        facts(
          `${host}:${port} accepts ${names.size} weak cipher suite(s) when only weak suites are offered.`,
          `Offered only the weak suites (NULL, anonymous, EXPORT, RC4, RC2, DES, 3DES, IDEA) and dropped each suite the server picked; accepted:\n${lines.join('\n')}`,
        ),
      ),
    );
  }
  if (result.hasForwardSecrecy === false) {
    out.push(
      buildTlsFinding(
        'no-forward-secrecy',
        facts(`${host}:${port} accepts no ECDHE or DHE suite and no TLS 1.3.`, result.forwardSecrecyEvidence),
      ),
    );
  }
  return out;
}

/**
 * engine/tls. For each target: one raw ClientHello tells whether the port speaks TLS; then, per
 * name (SNI), one ordinary handshake (protocol, suite, certificate chain, and GET / for HSTS on
 * HTTP ports when passive tests are allowed), the certificate assessment, the passive
 * judgement of what was negotiated, and, when allowed, the active probes. Every connection
 * passes the egress guard, honours the abort signal and the per-handshake time-out, and counts
 * against one connection limit. Hosts that refuse, stay silent or speak something else are
 * reported in endpoints and warnings; only an abort rejects.
 */
export function createTlsAssessor(deps: TlsAssessorDeps): TlsAssessor {
  const trust = createTrustStore(deps.extraRootsPem ?? []);
  const now = deps.now ?? (() => new Date());
  return {
    async assess(targets: TlsTarget[], options: TlsAssessmentOptions, signal: AbortSignal): Promise<TlsReport> {
      signal.throwIfAborted();
      // Every open connection listens for the abort: relay the caller's signal to one that allows that many listeners.
      const internal = new AbortController();
      setMaxListeners(0, internal.signal);
      const relay = (): void => internal.abort(signal.reason);
      signal.addEventListener('abort', relay, { once: true });
      const assessment: Assessment = {
        deps,
        trust,
        now,
        options,
        limit: createLimiter(deps.maxConnections ?? 32),
        context: { guard: deps.guard, signal: internal.signal, timeoutMs: options.timeoutMs },
        endpoints: [],
        warnings: [],
        findings: new Map(),
      };
      try {
        await Promise.all(targets.map((target) => assessTarget(assessment, target)));
      } finally {
        signal.removeEventListener('abort', relay);
      }
      signal.throwIfAborted();
      return sortedReport(assessment);
    },
  };
}

/** One assessment under way: what it needs, and what it found so far. */
interface Assessment {
  deps: TlsAssessorDeps;
  trust: ReturnType<typeof createTrustStore>;
  now: () => Date;
  options: TlsAssessmentOptions;
  /** The connection limit of the whole assessment. */
  limit: ReturnType<typeof createLimiter>;
  context: ProbeContext;
  endpoints: TlsEndpointReport[];
  warnings: string[];
  findings: FindingSet;
}

/**
 * Assesses one address and port: refused by the egress guard, or not speaking TLS (one
 * ClientHello tells), its names are endpoints without TLS and a warning says why; otherwise
 * each of its names (the address when it has none) is assessed side by side.
 */
async function assessTarget(assessment: Assessment, target: TlsTarget): Promise<void> {
  const { deps, warnings, endpoints, context, limit } = assessment;
  const names = target.names.length > 0 ? target.names : [target.address];
  const decision = deps.guard.check(target.address);
  if (!decision.isAllowed) {
    warnings.push(`${target.address}:${target.port}: refused by the egress guard (${decision.reason ?? 'denied'})`);
    for (const name of names) endpoints.push({ address: target.address, port: target.port, name, isTls: false });
    return;
  }
  // Discovery: one ClientHello offering TLS 1.0 to 1.3 with every suite; any TLS answer (even an alert) means TLS.
  const discovery = await probeRunner(
    target.address,
    target.port,
    context,
    limit,
  )({
    version: protocolVersions['TLSv1.3'],
    alsoVersions: [protocolVersions['TLSv1.2'], protocolVersions['TLSv1.1'], protocolVersions.TLSv1],
    suites: [...tls13Suites, ...legacySuites].map((s) => s.code),
    serverName: names[0],
  });
  if (discovery.kind !== 'server-hello' && discovery.kind !== 'alert') {
    warnings.push(`${target.address}:${target.port}: does not speak TLS (${describeOutcome(discovery)})`);
    for (const name of names) endpoints.push({ address: target.address, port: target.port, name, isTls: false });
    return;
  }
  await Promise.all(names.map((name) => assessName(assessment, target, name)));
}

/**
 * Assesses one name (SNI) of a TLS port: an ordinary handshake (with GET / for HSTS on HTTP ports
 * when passive tests are allowed), what it negotiated and presented, then the active probes when allowed.
 */
async function assessName(assessment: Assessment, target: TlsTarget, name: string): Promise<void> {
  const { options, warnings, findings, context, limit } = assessment;
  const endpoint: TlsEndpointReport = { address: target.address, port: target.port, name, isTls: true };
  assessment.endpoints.push(endpoint);
  const where = `${name} at ${target.address}:${target.port}`;
  const wantsHead = options.passive && target.isHttp;
  const handshake: OrdinaryHandshake = await limit(() =>
    ordinaryHandshake(
      target.address,
      target.port,
      {
        serverName: name,
        ...(wantsHead
          ? { httpHead: { hostHeader: hostHeader(name, target.port), customHeaders: options.customHeaders } }
          : {}),
      },
      context,
    ),
  );
  if (handshake.kind === 'connected') judgeHandshake(assessment, endpoint, handshake, where);
  else warnings.push(`${where}: ordinary handshake failed (${handshake.reason})`);
  if (options.active) {
    const result = await runActiveProbes(probeRunner(target.address, target.port, context, limit), name);
    endpoint.acceptedProtocols = result.accepted.map(protocolName);
    for (const finding of activeFindings(result, name, target.port)) add(findings, finding);
    warnings.push(...result.inconclusive.map((w) => `${where}: active probe inconclusive: ${w}`));
  }
}

/**
 * Records what a handshake negotiated (protocol, suite, the leaf certificate) and judges it: the
 * certificate chain when certificates are assessed, what was negotiated when passive tests are allowed.
 */
function judgeHandshake(
  assessment: Assessment,
  endpoint: TlsEndpointReport,
  handshake: Extract<OrdinaryHandshake, { kind: 'connected' }>,
  where: string,
): void {
  const { options, warnings, findings } = assessment;
  endpoint.protocol = handshake.protocol;
  endpoint.cipher = handshake.suiteName;
  const chain = parseChain(handshake.chain);
  if (chain[0] !== undefined) endpoint.certificate = certificateSummary(chain[0]);
  if (options.certificates) {
    if (chain.length === 0) warnings.push(`${where}: no certificate could be parsed`);
    judgeChain(assessment, endpoint, handshake.protocol, chain);
  }
  if (options.passive) {
    const passive = passiveFindings(handshake, endpoint.name, endpoint.port);
    for (const finding of passive.findings) add(findings, finding);
    warnings.push(...passive.warnings.map((w) => `${where}: ${w}`));
  }
}

/** A finding for each issue of a certificate chain (trust, name, validity, keys), with the chain as evidence. */
function judgeChain(
  assessment: Assessment,
  endpoint: TlsEndpointReport,
  protocol: string,
  chain: ReturnType<typeof parseChain>,
): void {
  const { name, port } = endpoint;
  for (const issue of assessChain(chain, name, assessment.trust, assessment.now())) {
    const evidence = chain
      .map(
        (c, i) =>
          `${i === 0 ? 'leaf' : `#${i}`}: subject ${c.subject}; issuer ${c.issuer}; ${c.keyText}; ${c.signatureText}; valid ${c.parsed.notBefore.toISOString()} to ${c.parsed.notAfter.toISOString()}; SHA-256 ${c.sha256}`,
      )
      .join('\n');
    add(
      assessment.findings,
      buildTlsFinding(issue.kind, {
        host: name,
        port,
        observation: issue.observation,
        evidence: `Certificates presented after a ${protocol} handshake with SNI ${name}:\n${evidence}`,
      }),
    );
  }
}

/** The report of an assessment: endpoints by address, port and name; findings by location and check. */
function sortedReport(assessment: Assessment): TlsReport {
  const { endpoints, findings, warnings } = assessment;
  const order = (e: TlsEndpointReport): string => `${e.address}\u0000${String(e.port).padStart(5, '0')}\u0000${e.name}`;
  endpoints.sort((a, b) => order(a).localeCompare(order(b)));
  const sorted = [...findings.values()].sort((a, b) =>
    `${a.location}\u0000${a.checkId}`.localeCompare(`${b.location}\u0000${b.checkId}`),
  );
  return { endpoints, findings: sorted, warnings };
}
