import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { OwnershipChecker, OwnershipCheckResult } from '../../core/assets/verification.service.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import { refuseLookup, resolveGuarded, unbracketHost, type EgressGuard } from '../net/egress-guard.ts';

/** What the checker needs; the guard and the resolver are shared with the rest of the engine. */
export interface OwnershipCheckerDeps {
  guard: EgressGuard;
  resolver: DnsResolver;
  /** Time limit of one HTTP attempt, in milliseconds (the caller's signal bounds the whole check). */
  attemptTimeoutMs?: number;
}

const WELL_KNOWN_PATH = '/.well-known/perimeter-verification.txt';
const PREFIX = 'perimeter-verification=';
// The file holds a short code; a cap keeps a hostile server from feeding us megabytes.
const BODY_LIMIT = 4096;

type Scheme = 'http' | 'https';

/** One HTTP attempt: a scheme and a port, with the URL authority used in Host and observations. */
interface Attempt {
  scheme: Scheme;
  port: number;
  /** `name`, `name:port` or `[v6]:port`: the port only when it is not the scheme's default. */
  authority: string;
  label: string;
}

/** The outcome of one attempt: either a body to compare or a line for the observations. */
type AttemptOutcome = { body: string } | { problem: string };

/** With a port: https then http on it; without: https on 443 then http on 80. */
function plannedAttempts(host: string, port: number | null): Attempt[] {
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  const plan: Array<[Scheme, number]> =
    port === null
      ? [
          ['https', 443],
          ['http', 80],
        ]
      : [
          ['https', port],
          ['http', port],
        ];
  return plan.map(([scheme, p]) => {
    const isDefault = (scheme === 'https' && p === 443) || (scheme === 'http' && p === 80);
    const authority = isDefault ? urlHost : `${urlHost}:${p}`;
    return { scheme, port: p, authority, label: `${scheme}://${authority}` };
  });
}

/** True when a TXT record or a file body carries the code. */
function holdsCode(text: string, code: string, isBareCodeAccepted: boolean): boolean {
  const trimmed = text.trim();
  return trimmed === `${PREFIX}${code}` || (isBareCodeAccepted && trimmed === code);
}

/** A short human-readable reason for a failed connection. */
function describeFailure(err: unknown, timeoutMs: number, isCallerAborted: boolean): string {
  if (isCallerAborted) return 'aborted';
  const code = (err as { code?: unknown } | null)?.code;
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'AbortError' || code === 'ABORT_ERR') return `timed out after ${timeoutMs} ms`;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EPROTO':
      return 'TLS handshake failed';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return (err as Error).message ?? String(err);
  }
}

/**
 * Fetches the well-known file from an address that the guard already checked. The socket goes
 * to that IP literal (and refuseLookup fails any other host), so no second resolution can swap
 * it; Host and SNI still carry the name.
 * Certificates are not validated: the code itself is the proof, and plain HTTP is accepted.
 */
function fetchFile(attempt: Attempt, host: string, address: string, signal: AbortSignal): Promise<AttemptOutcome> {
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions = {
      host: address,
      port: attempt.port,
      path: WELL_KNOWN_PATH,
      method: 'GET',
      headers: { host: attempt.authority, 'user-agent': 'perimeter-verifier', accept: 'text/plain' },
      agent: false,
      lookup: refuseLookup,
      signal,
    };
    if (attempt.scheme === 'https') {
      options.rejectUnauthorized = false;
      // SNI may not carry an IP literal.
      if (isIP(host) === 0) options.servername = host;
    }
    const request = (attempt.scheme === 'https' ? https : http).request(options, (res) => {
      if (res.statusCode !== 200) {
        const redirect =
          res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400
            ? ' (redirects are not followed)'
            : '';
        res.destroy();
        resolve({ problem: `answered ${res.statusCode ?? 'no status'}${redirect}` });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size > BODY_LIMIT) {
          res.destroy();
          resolve({ problem: `body larger than ${BODY_LIMIT} bytes` });
        }
      });
      res.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
      res.on('close', () => {
        // A response cut short (abort, reset) closes without 'end'.
        if (!res.complete)
          reject(
            signal.aborted
              ? (signal.reason ?? new Error('aborted'))
              : new Error('connection closed before the body ended'),
          );
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** Runs one attempt against each checked address in turn until one answers. */
async function runAttempt(
  attempt: Attempt,
  host: string,
  addresses: string[],
  signal: AbortSignal,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  const attemptSignal = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  let lastProblem = 'no address to connect to';
  for (const address of addresses) {
    try {
      return await fetchFile(attempt, host, address, attemptSignal);
    } catch (err) {
      lastProblem = describeFailure(err, timeoutMs, signal.aborted);
      if (attemptSignal.aborted) break;
    }
  }
  return { problem: lastProblem };
}

/** Looks up the TXT records at the name and reports whether one holds the code. */
async function checkTxt(
  resolver: DnsResolver,
  name: string,
  code: string,
  signal: AbortSignal,
): Promise<{ isVerified: boolean; observation: string }> {
  try {
    const records = await resolver.resolveTxt(name, signal);
    if (records.some((record) => holdsCode(record, code, false)))
      return { isVerified: true, observation: 'dns: a TXT record holds the code' };
    return {
      isVerified: false,
      observation: records.length === 0 ? 'dns: no TXT record at the name' : 'dns: no TXT record holds the code',
    };
  } catch (err) {
    return { isVerified: false, observation: (err as Error).message };
  }
}

/**
 * The engine's ownership check: DNS TXT at the name (domains only), then the well-known file
 * over https and http. Every connection passes the egress guard; it never throws for an
 * unreachable, denied or missing host and reports one observation line per attempt instead.
 */
export function createOwnershipChecker(deps: OwnershipCheckerDeps): OwnershipChecker {
  const timeoutMs = deps.attemptTimeoutMs ?? 4000;

  return {
    async check(target, code, signal): Promise<OwnershipCheckResult> {
      const observations: string[] = [];
      const host = unbracketHost(target.name);
      // Stops the address lookup started in parallel once the TXT record already decided.
      const local = new AbortController();
      const lookupSignal = AbortSignal.any([signal, local.signal]);
      // Started together with the TXT lookup so a slow DNS answer is not paid twice; one
      // resolution serves every HTTP attempt, each of which reports its outcome.
      const addresses = resolveGuarded(host, deps.guard, deps.resolver, lookupSignal).then(
        (list) => ({ list }),
        (err: unknown) => ({ err }),
      );

      try {
        if (target.kind === 'domain') {
          const txt = await checkTxt(deps.resolver, host, code, signal);
          observations.push(txt.observation);
          if (txt.isVerified) return { isVerified: true, via: 'dns', observations };
        }

        const resolved = await addresses;
        for (const attempt of plannedAttempts(host, target.port)) {
          if (signal.aborted) {
            observations.push(`${attempt.label}: aborted`);
            continue;
          }
          if ('err' in resolved) {
            // EgressDeniedError and resolver errors both carry a message meant for people.
            observations.push(
              `${attempt.label}: ${resolved.err instanceof Error ? resolved.err.message : String(resolved.err)}`,
            );
            continue;
          }
          if (resolved.list.length === 0) {
            observations.push(`${attempt.label}: ${host} has no address`);
            continue;
          }
          const outcome = await runAttempt(attempt, host, resolved.list, signal, timeoutMs);
          if ('problem' in outcome) {
            observations.push(`${attempt.label}: ${outcome.problem}`);
          } else if (holdsCode(outcome.body, code, true)) {
            observations.push(`${attempt.label}: the file holds the code`);
            return { isVerified: true, via: attempt.scheme, observations };
          } else {
            observations.push(`${attempt.label}: the file does not hold the code`);
          }
        }
        return { isVerified: false, observations };
      } finally {
        local.abort();
      }
    },
  };
}
