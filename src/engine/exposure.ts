import { noVersionAdvisories, type ExposureEngines } from '../core/surface/exposure-engines.ts';
import type { DnsResolver } from './dns/resolver.ts';
import { createFingerprinter } from './fingerprint/fingerprinter.ts';
import type { EgressGuard } from './net/egress-guard.ts';
import { createPortScanner } from './ports/port-scanner.ts';
import { createTlsAssessor } from './tls/tls-assessor.ts';

/** What the exposure engines share: the egress guard every connection passes, and the resolver. */
export interface ExposureEngineDeps {
  guard: EgressGuard;
  resolver: DnsResolver;
  /** PEM roots the TLS assessor trusts besides Node's bundled Mozilla roots (tests: their own CA). */
  extraRootsPem?: string[];
}

/** The three exposure engines of a surface run (ports, TLS, fingerprinting), wired once. */
export function createExposureEngines(deps: ExposureEngineDeps): ExposureEngines {
  return {
    ports: createPortScanner({ guard: deps.guard }),
    tls: createTlsAssessor({
      guard: deps.guard,
      ...(deps.extraRootsPem === undefined ? {} : { extraRootsPem: deps.extraRootsPem }),
    }),
    fingerprint: createFingerprinter({ guard: deps.guard, resolver: deps.resolver }),
    versions: noVersionAdvisories,
  };
}
