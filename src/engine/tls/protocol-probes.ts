import {
  forwardSecretSuites,
  legacySuites,
  suiteOf,
  tls13Suites,
  weakSuites,
  type CipherSuite,
} from './cipher-suites.ts';
import { buildClientHello, protocolName, protocolVersions, type HelloOffer } from './client-hello.ts';
import { probeHandshake, type ProbeContext, type ProbeOutcome } from './handshake-probe.ts';
import { alertName } from './server-reply.ts';

/** What the active probes found on one (endpoint, name). */
export interface ActiveProbeResult {
  /** Wire versions the server accepted when offered alone, ascending. */
  accepted: number[];
  /** Per offered version: what was offered and how the server answered. */
  protocolEvidence: Map<number, string>;
  /** Weak suites accepted, per accepted version of TLS 1.2 and below. */
  weakSuites: Array<{ version: number; suites: CipherSuite[] }>;
  /** True when TLS 1.3 or an ECDHE/DHE suite was accepted; undefined when no protocol was. */
  hasForwardSecrecy: boolean | undefined;
  forwardSecrecyEvidence: string;
  /** Probes that timed out or could not connect (their protocol counts as not accepted). */
  inconclusive: string[];
}

/** Runs one probe under the connection limit. */
export type ProbeRunner = (offer: HelloOffer) => Promise<ProbeOutcome>;

/** A ProbeRunner over probeHandshake for address:port, each probe taking a slot of `limit`. */
export function probeRunner(
  address: string,
  port: number,
  context: ProbeContext,
  limit: <T>(task: () => Promise<T>) => Promise<T>,
): ProbeRunner {
  return (offer) => limit(() => probeHandshake(address, port, buildClientHello(offer), context));
}

/** How an outcome reads in evidence. */
export function describeOutcome(outcome: ProbeOutcome): string {
  switch (outcome.kind) {
    case 'server-hello':
      return `ServerHello ${protocolName(outcome.version)} ${suiteOf(outcome.suite).name}${outcome.isHelloRetry ? ' (HelloRetryRequest)' : ''}`;
    case 'alert':
      return `alert ${alertName(outcome.description)}`;
    case 'closed':
      return 'connection closed without an answer';
    case 'timeout':
      return 'no answer in time';
    case 'not-tls':
      return `not TLS: ${outcome.reason}`;
    default:
      return `${outcome.kind}: ${outcome.reason}`;
  }
}

function offerText(offer: HelloOffer, count: number): string {
  return `${protocolName(offer.version)} ClientHello${offer.serverName === undefined ? '' : ` (SNI ${offer.serverName})`} offering ${count} suites`;
}

/** The version alone: for TLS 1.3 via supported_versions; for the others as legacy_version with every legacy suite. */
function versionOffer(version: number, serverName: string | undefined): HelloOffer {
  const suites = version === protocolVersions['TLSv1.3'] ? tls13Suites : legacySuites;
  return { version, suites: suites.map((s) => s.code), serverName };
}

function isAccepted(outcome: ProbeOutcome, version: number): boolean {
  return outcome.kind === 'server-hello' && outcome.version === version;
}

/**
 * Repeatedly offers `candidates` at `version`, dropping the suite the server picks, until it
 * refuses: the accepted subset, in the server's order of choice (sslscan's enumeration).
 */
async function acceptedAmong(
  run: ProbeRunner,
  version: number,
  candidates: readonly CipherSuite[],
  serverName: string | undefined,
  inconclusive: string[],
): Promise<CipherSuite[]> {
  const left = new Map(candidates.map((s) => [s.code, s]));
  const accepted: CipherSuite[] = [];
  while (left.size > 0) {
    const outcome = await run({ version, suites: [...left.keys()], serverName });
    if (outcome.kind === 'timeout' || outcome.kind === 'unreachable')
      inconclusive.push(`${protocolName(version)} suite probe: ${describeOutcome(outcome)}`);
    if (outcome.kind !== 'server-hello' || outcome.version !== version) break;
    const chosen = left.get(outcome.suite);
    // A server that answers with a suite not offered is broken; stop rather than loop.
    if (chosen === undefined) break;
    accepted.push(chosen);
    left.delete(outcome.suite);
  }
  return accepted;
}

/** The weak suites accepted at a version: one probe with all of them; only when one is taken, each weakness enumerated in parallel. */
async function weakAt(
  run: ProbeRunner,
  version: number,
  serverName: string | undefined,
  inconclusive: string[],
): Promise<CipherSuite[]> {
  const first = await run({ version, suites: weakSuites.map((s) => s.code), serverName });
  if (!isAccepted(first, version)) return [];
  const groups = new Map<string, CipherSuite[]>();
  for (const suite of weakSuites)
    groups.set(suite.weakness as string, [...(groups.get(suite.weakness as string) ?? []), suite]);
  const found = await Promise.all(
    [...groups.values()].map((group) => acceptedAmong(run, version, group, serverName, inconclusive)),
  );
  return found.flat();
}

/**
 * The active assessment of one (endpoint, name): each protocol from SSLv3 to TLS 1.3 offered
 * alone (five ClientHellos in parallel); then, for every accepted version up to TLS 1.2, the
 * weak suites offered alone (enumerated when one is taken) and, without TLS 1.3, the
 * forward-secret suites offered alone.
 */
export async function runActiveProbes(run: ProbeRunner, serverName: string | undefined): Promise<ActiveProbeResult> {
  const versions = Object.values(protocolVersions);
  const inconclusive: string[] = [];
  const protocolEvidence = new Map<number, string>();
  const outcomes = await Promise.all(
    versions.map(async (version) => {
      const offer = versionOffer(version, serverName);
      const outcome = await run(offer);
      protocolEvidence.set(
        version,
        `offered ${offerText(offer, offer.suites.length)}; answered ${describeOutcome(outcome)}`,
      );
      if (outcome.kind === 'timeout' || outcome.kind === 'unreachable')
        inconclusive.push(`${protocolName(version)}: ${describeOutcome(outcome)}`);
      return { version, outcome };
    }),
  );
  const accepted = outcomes.filter((o) => isAccepted(o.outcome, o.version)).map((o) => o.version);
  const legacyAccepted = accepted.filter((v) => v < protocolVersions['TLSv1.3']);
  const fsProbe = async (): Promise<{ has: boolean | undefined; evidence: string }> => {
    if (accepted.length === 0) return { has: undefined, evidence: 'no protocol accepted' };
    if (accepted.includes(protocolVersions['TLSv1.3']))
      return { has: true, evidence: 'TLS 1.3 accepted (every TLS 1.3 suite is forward secret)' };
    const results = await Promise.all(
      legacyAccepted.map(async (version) => {
        const offer: HelloOffer = { version, suites: forwardSecretSuites.map((s) => s.code), serverName };
        const outcome = await run(offer);
        return {
          ok: isAccepted(outcome, version),
          text: `offered ${offerText(offer, offer.suites.length)} (ECDHE and DHE only); answered ${describeOutcome(outcome)}`,
        };
      }),
    );
    return { has: results.some((r) => r.ok), evidence: results.map((r) => r.text).join('\n') };
  };
  const [weak, fs] = await Promise.all([
    Promise.all(
      legacyAccepted.map(async (version) => ({
        version,
        suites: await weakAt(run, version, serverName, inconclusive),
      })),
    ),
    fsProbe(),
  ]);
  return {
    accepted,
    protocolEvidence,
    weakSuites: weak.filter((w) => w.suites.length > 0),
    hasForwardSecrecy: fs.has,
    forwardSecrecyEvidence: fs.evidence,
    inconclusive,
  };
}
