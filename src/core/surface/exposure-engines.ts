import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';

/**
 * The core's view of the three engines that tell what each host of a monitored asset exposes:
 * ports (engine/ports), TLS (engine/tls) and technologies (engine/fingerprint). Each takes an
 * abort signal, dials only through the egress guard, and reports observations and findings;
 * only the core writes the store (the surface runner records them in the inventories and
 * through the ingestion service).
 */

// ---------------------------------------------------------------------------------------------
// Ports

/** What a port scan guesses about the service behind an open port. */
export interface ServiceGuess {
  /**
   * Lower-case service name: `http`, `https`, `ssh`, `ftp`, `smtp`, `pop3`, `imap`, `mysql`,
   * `postgresql`, `redis`, `tls` (TLS, protocol inside unknown) … or `unknown`.
   */
  name: string;
  /** True when the port completed a TLS handshake (or answered a ClientHello as TLS does). */
  isTls: boolean;
  /** True when the port answered HTTP (over TLS when isTls). */
  isHttp: boolean;
  /** The first bytes the service sent or answered, printable, at most 200 characters. */
  banner?: string;
  /** Product and version when the banner names them (`OpenSSH`, `8.9p1`). */
  product?: string;
  version?: string;
}

/** One port scan: every port of `ports` on every address of `addresses`. */
export interface PortScanRequest {
  /** IP literals (already resolved and in scope); each is checked by the egress guard. */
  addresses: string[];
  /** Ports 1–65535, distinct. */
  ports: number[];
  /** Identify the service of each open port (banner, TLS, HTTP); off = open/closed only. */
  identify: boolean;
  signal: AbortSignal;
  onProgress?(progress: { probed: number; open: number }): void;
}

/** What a scan found: the open ports with their service; every other probed port is closed or filtered. */
export interface PortScanReport {
  open: Array<{ address: string; port: number; service: ServiceGuess }>;
  /** (address, port) pairs probed. */
  probed: number;
  /** Addresses the egress guard refused, time limits hit … (for people). */
  warnings: string[];
}

/** engine/ports. */
export interface PortScanner {
  /** The recommended-ports list the engine ships (port_scanning_include_recommended_ports), ascending. */
  readonly recommendedPorts: readonly number[];
  scan(request: PortScanRequest): Promise<PortScanReport>;
}

// ---------------------------------------------------------------------------------------------
// TLS

/** One TLS endpoint to assess: an address and port, with the names served on it (one SNI each). */
export interface TlsTarget {
  address: string;
  port: number;
  /** Host names that resolve to the address; each is sent as SNI and checked against the certificate. */
  names: string[];
  /** True when the port speaks HTTP over TLS: HSTS is checked on it. */
  isHttp: boolean;
}

/** Which assessments the asset's settings allow. */
export interface TlsAssessmentOptions {
  /** enable_certificate_assessments: validity, hostname, trust, key and signature. */
  certificates: boolean;
  /** enable_passive_tls_assessments: what one ordinary handshake (and one HTTPS GET for HSTS) shows. */
  passive: boolean;
  /** enable_active_tls_assessments: extra handshakes offering old protocols and weak suites. */
  active: boolean;
  /** Custom headers of the asset, sent with the HSTS request. */
  customHeaders: Array<{ name: string; value: string }>;
  /** Time limit of one handshake or request. */
  timeoutMs: number;
}

/** What one (endpoint, name) handshake showed. */
export interface TlsEndpointReport {
  address: string;
  port: number;
  name: string;
  isTls: boolean;
  /** Negotiated by the ordinary handshake (`TLSv1.3`), and the suite (`TLS_AES_256_GCM_SHA384`). */
  protocol?: string;
  cipher?: string;
  /** Protocols the active probes found accepted (only when active tests ran). */
  acceptedProtocols?: string[];
  certificate?: { subject: string; issuer: string; notBefore: Date; notAfter: Date; sha256: string; sans: string[] };
}

/** What a TLS assessment found. Findings have checkId, host, location (`host:port`) and evidence. */
export interface TlsReport {
  endpoints: TlsEndpointReport[];
  findings: FindingInput[];
  warnings: string[];
}

/** engine/tls. */
export interface TlsAssessor {
  assess(targets: TlsTarget[], options: TlsAssessmentOptions, signal: AbortSignal): Promise<TlsReport>;
}

// ---------------------------------------------------------------------------------------------
// Technologies

/** A web origin to fingerprint; `host` is the asset's name or a name under it. */
export interface FingerprintOrigin {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  scopeName: string;
}

/** Settings of one fingerprinting pass. */
export interface FingerprintOptions {
  requestsPerSecond: number;
  customHeaders: Array<{ name: string; value: string }>;
  requestTimeoutMs: number;
}

/** A technology seen on an origin. */
export interface TechnologyObservation {
  host: string;
  port: number;
  /** `http` or `https`. */
  serviceProtocol: string;
  /** The rule set's name (`Nginx`, `WordPress`). */
  name: string;
  /** Null when the origin does not tell the version. */
  version: string | null;
  categories: string[];
  /** 0–100, as the rule set weighs its matches. */
  confidence: number;
}

/** What a fingerprinting pass found. */
export interface FingerprintReport {
  technologies: TechnologyObservation[];
  /** Origins that answered, and requests sent. */
  origins: number;
  requests: number;
  warnings: string[];
}

/** engine/fingerprint. */
export interface Fingerprinter {
  fingerprint(
    origins: FingerprintOrigin[],
    options: FingerprintOptions,
    signal: AbortSignal,
  ): Promise<FingerprintReport>;
}

/**
 * The seam for vulnerable-version matching (a later issue): given a technology with a version,
 * the findings it implies. The runner calls it for every versioned technology; until a data
 * source lands the service uses `noVersionAdvisories`.
 */
export interface VersionAdvisor {
  advisories(technology: TechnologyObservation): FindingInput[];
}

export const noVersionAdvisories: VersionAdvisor = { advisories: () => [] };

/** The three exposure engines a surface run uses. */
export interface ExposureEngines {
  ports: PortScanner;
  tls: TlsAssessor;
  fingerprint: Fingerprinter;
  versions: VersionAdvisor;
}
