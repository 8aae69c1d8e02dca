import type { FindingInput } from '../../core/vulnerabilities/vulnerability.types.ts';
import { hstsMaxAge } from '../http-scan/checks/header-policies.ts';
import { suiteNamed } from './cipher-suites.ts';
import type { OrdinaryHandshake } from './ordinary-handshake.ts';
import { buildTlsFinding, type TlsFindingKind } from './tls-findings.ts';

const LEGACY_PROTOCOLS: Record<string, TlsFindingKind> = { SSLv3: 'sslv3', TLSv1: 'tls10', 'TLSv1.1': 'tls11' };

/**
 * What the ordinary handshake shows without any extra packet: the negotiated suite (weak, or
 * without forward secrecy), the negotiated protocol (below TLS 1.2, or no TLS 1.3 although the
 * client offered it) and, on HTTP ports, the Strict-Transport-Security header of GET /.
 */
export function passiveFindings(
  handshake: Extract<OrdinaryHandshake, { kind: 'connected' }>,
  host: string,
  port: number,
): { findings: FindingInput[]; warnings: string[] } {
  const findings: FindingInput[] = [];
  const warnings: string[] = [];
  const negotiated = `An ordinary handshake (Node.js client offering TLS 1.0 to TLS 1.3, OpenSSL's default suites, modern first, SNI ${host}) negotiated ${handshake.protocol} with ${handshake.suiteName}.`;
  const facts = (observation: string) => ({ host, port, observation, evidence: negotiated });
  const suite = suiteNamed(handshake.suiteName);
  if (suite?.weakness !== undefined)
    findings.push(
      buildTlsFinding(
        'weak-suite-negotiated',
        facts(`${host}:${port} chose the weak suite ${suite.name} (${suite.weakness}) for an ordinary client.`),
      ),
    );
  if (suite !== undefined && !suite.isForwardSecret)
    findings.push(
      buildTlsFinding(
        'no-forward-secrecy-negotiated',
        facts(`${host}:${port} chose ${suite.name}, whose key exchange is not ephemeral, for an ordinary client.`),
      ),
    );
  const legacy = LEGACY_PROTOCOLS[handshake.protocol];
  if (legacy !== undefined)
    findings.push(
      buildTlsFinding(
        legacy,
        facts(`${host}:${port} negotiated ${handshake.protocol} with a client that offered up to TLS 1.3.`),
      ),
    );
  if (handshake.protocol !== 'TLSv1.3')
    findings.push(
      buildTlsFinding(
        'no-tls13',
        facts(`${host}:${port} negotiated ${handshake.protocol} although the client offered TLS 1.3.`),
      ),
    );
  if (typeof handshake.http === 'string') {
    warnings.push(`HSTS not checked: ${handshake.http}`);
  } else if (handshake.http !== undefined) {
    const http = handshake.http;
    const values = http.headers.filter((h) => h.name.toLowerCase() === 'strict-transport-security').map((h) => h.value);
    const maxAge = values.length > 0 ? hstsMaxAge(values[0] as string) : undefined;
    if (maxAge === undefined || maxAge === 0) {
      const seen =
        values.length === 0
          ? 'no Strict-Transport-Security header'
          : `Strict-Transport-Security: ${values[0]} (no positive max-age)`;
      findings.push(
        buildTlsFinding('hsts-missing', {
          host,
          port,
          observation: `The response to GET ${http.request.url} (status ${http.status}) carries ${seen}.`,
          evidence: `GET ${http.request.url} over ${handshake.protocol}; response status ${http.status} with headers: ${http.headers.map((h) => h.name).join(', ') || '(none)'}`,
          http,
        }),
      );
    }
  }
  return { findings, warnings };
}
