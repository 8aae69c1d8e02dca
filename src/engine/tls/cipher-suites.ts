/**
 * The TLS cipher suites the probes know: code points and IANA names (the registry's names,
 * as `openssl ciphers -stdname` prints them), classified by what makes a suite weak and by
 * whether its key exchange is forward secret. The list is every suite Debian's OpenSSL 3 knows
 * plus the legacy ones it no longer builds (RC4, DES, 3DES, EXPORT, static ECDH), so a probe can
 * offer what an old server might still accept.
 */

/** What makes a suite weak; undefined for a suite that is not. */
export type SuiteWeakness =
  | 'NULL encryption'
  | 'anonymous key exchange'
  | 'export grade'
  | 'RC4'
  | 'single DES'
  | '3DES (64-bit block)'
  | 'IDEA (64-bit block)'
  | 'RC2';

/** One cipher suite with its classification. */
export interface CipherSuite {
  code: number;
  /** IANA name (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`). */
  name: string;
  /** True for the TLS 1.3 suites (`TLS_AES_128_GCM_SHA256`), which only TLS 1.3 negotiates. */
  isTls13: boolean;
  /** Authenticated ephemeral key exchange (DHE, ECDHE, or any TLS 1.3 suite). */
  isForwardSecret: boolean;
  weakness: SuiteWeakness | undefined;
}

const REGISTRY: ReadonlyArray<readonly [number, string]> = [
  [0x0001, 'TLS_RSA_WITH_NULL_MD5'],
  [0x0002, 'TLS_RSA_WITH_NULL_SHA'],
  [0x0003, 'TLS_RSA_EXPORT_WITH_RC4_40_MD5'],
  [0x0004, 'TLS_RSA_WITH_RC4_128_MD5'],
  [0x0005, 'TLS_RSA_WITH_RC4_128_SHA'],
  [0x0006, 'TLS_RSA_EXPORT_WITH_RC2_CBC_40_MD5'],
  [0x0007, 'TLS_RSA_WITH_IDEA_CBC_SHA'],
  [0x0008, 'TLS_RSA_EXPORT_WITH_DES40_CBC_SHA'],
  [0x0009, 'TLS_RSA_WITH_DES_CBC_SHA'],
  [0x000a, 'TLS_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0x000b, 'TLS_DH_DSS_EXPORT_WITH_DES40_CBC_SHA'],
  [0x000c, 'TLS_DH_DSS_WITH_DES_CBC_SHA'],
  [0x000d, 'TLS_DH_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0x000e, 'TLS_DH_RSA_EXPORT_WITH_DES40_CBC_SHA'],
  [0x000f, 'TLS_DH_RSA_WITH_DES_CBC_SHA'],
  [0x0010, 'TLS_DH_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0x0011, 'TLS_DHE_DSS_EXPORT_WITH_DES40_CBC_SHA'],
  [0x0012, 'TLS_DHE_DSS_WITH_DES_CBC_SHA'],
  [0x0013, 'TLS_DHE_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0x0014, 'TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA'],
  [0x0015, 'TLS_DHE_RSA_WITH_DES_CBC_SHA'],
  [0x0016, 'TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0x0017, 'TLS_DH_anon_EXPORT_WITH_RC4_40_MD5'],
  [0x0018, 'TLS_DH_anon_WITH_RC4_128_MD5'],
  [0x0019, 'TLS_DH_anon_EXPORT_WITH_DES40_CBC_SHA'],
  [0x001a, 'TLS_DH_anon_WITH_DES_CBC_SHA'],
  [0x001b, 'TLS_DH_anon_WITH_3DES_EDE_CBC_SHA'],
  [0x002c, 'TLS_PSK_WITH_NULL_SHA'],
  [0x002d, 'TLS_DHE_PSK_WITH_NULL_SHA'],
  [0x002e, 'TLS_RSA_PSK_WITH_NULL_SHA'],
  [0x002f, 'TLS_RSA_WITH_AES_128_CBC_SHA'],
  [0x0032, 'TLS_DHE_DSS_WITH_AES_128_CBC_SHA'],
  [0x0033, 'TLS_DHE_RSA_WITH_AES_128_CBC_SHA'],
  [0x0034, 'TLS_DH_anon_WITH_AES_128_CBC_SHA'],
  [0x0035, 'TLS_RSA_WITH_AES_256_CBC_SHA'],
  [0x0038, 'TLS_DHE_DSS_WITH_AES_256_CBC_SHA'],
  [0x0039, 'TLS_DHE_RSA_WITH_AES_256_CBC_SHA'],
  [0x003a, 'TLS_DH_anon_WITH_AES_256_CBC_SHA'],
  [0x003b, 'TLS_RSA_WITH_NULL_SHA256'],
  [0x003c, 'TLS_RSA_WITH_AES_128_CBC_SHA256'],
  [0x003d, 'TLS_RSA_WITH_AES_256_CBC_SHA256'],
  [0x0040, 'TLS_DHE_DSS_WITH_AES_128_CBC_SHA256'],
  [0x0041, 'TLS_RSA_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0044, 'TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0045, 'TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0046, 'TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0067, 'TLS_DHE_RSA_WITH_AES_128_CBC_SHA256'],
  [0x006a, 'TLS_DHE_DSS_WITH_AES_256_CBC_SHA256'],
  [0x006b, 'TLS_DHE_RSA_WITH_AES_256_CBC_SHA256'],
  [0x006c, 'TLS_DH_anon_WITH_AES_128_CBC_SHA256'],
  [0x006d, 'TLS_DH_anon_WITH_AES_256_CBC_SHA256'],
  [0x0084, 'TLS_RSA_WITH_CAMELLIA_256_CBC_SHA'],
  [0x0087, 'TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA'],
  [0x0088, 'TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA'],
  [0x0089, 'TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA'],
  [0x008a, 'TLS_PSK_WITH_RC4_128_SHA'],
  [0x008b, 'TLS_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x008c, 'TLS_PSK_WITH_AES_128_CBC_SHA'],
  [0x008d, 'TLS_PSK_WITH_AES_256_CBC_SHA'],
  [0x008e, 'TLS_DHE_PSK_WITH_RC4_128_SHA'],
  [0x008f, 'TLS_DHE_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x0090, 'TLS_DHE_PSK_WITH_AES_128_CBC_SHA'],
  [0x0091, 'TLS_DHE_PSK_WITH_AES_256_CBC_SHA'],
  [0x0092, 'TLS_RSA_PSK_WITH_RC4_128_SHA'],
  [0x0093, 'TLS_RSA_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x0094, 'TLS_RSA_PSK_WITH_AES_128_CBC_SHA'],
  [0x0095, 'TLS_RSA_PSK_WITH_AES_256_CBC_SHA'],
  [0x009c, 'TLS_RSA_WITH_AES_128_GCM_SHA256'],
  [0x009d, 'TLS_RSA_WITH_AES_256_GCM_SHA384'],
  [0x009e, 'TLS_DHE_RSA_WITH_AES_128_GCM_SHA256'],
  [0x009f, 'TLS_DHE_RSA_WITH_AES_256_GCM_SHA384'],
  [0x00a2, 'TLS_DHE_DSS_WITH_AES_128_GCM_SHA256'],
  [0x00a3, 'TLS_DHE_DSS_WITH_AES_256_GCM_SHA384'],
  [0x00a6, 'TLS_DH_anon_WITH_AES_128_GCM_SHA256'],
  [0x00a7, 'TLS_DH_anon_WITH_AES_256_GCM_SHA384'],
  [0x00a8, 'TLS_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00a9, 'TLS_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00aa, 'TLS_DHE_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00ab, 'TLS_DHE_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00ac, 'TLS_RSA_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00ad, 'TLS_RSA_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00ae, 'TLS_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00af, 'TLS_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00b0, 'TLS_PSK_WITH_NULL_SHA256'],
  [0x00b1, 'TLS_PSK_WITH_NULL_SHA384'],
  [0x00b2, 'TLS_DHE_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00b3, 'TLS_DHE_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00b4, 'TLS_DHE_PSK_WITH_NULL_SHA256'],
  [0x00b5, 'TLS_DHE_PSK_WITH_NULL_SHA384'],
  [0x00b6, 'TLS_RSA_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00b7, 'TLS_RSA_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00b8, 'TLS_RSA_PSK_WITH_NULL_SHA256'],
  [0x00b9, 'TLS_RSA_PSK_WITH_NULL_SHA384'],
  [0x00ba, 'TLS_RSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00bd, 'TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00be, 'TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00bf, 'TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00c0, 'TLS_RSA_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x00c3, 'TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x00c4, 'TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x00c5, 'TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x1301, 'TLS_AES_128_GCM_SHA256'],
  [0x1302, 'TLS_AES_256_GCM_SHA384'],
  [0x1303, 'TLS_CHACHA20_POLY1305_SHA256'],
  [0x1304, 'TLS_AES_128_CCM_SHA256'],
  [0x1305, 'TLS_AES_128_CCM_8_SHA256'],
  [0xc001, 'TLS_ECDH_ECDSA_WITH_NULL_SHA'],
  [0xc002, 'TLS_ECDH_ECDSA_WITH_RC4_128_SHA'],
  [0xc003, 'TLS_ECDH_ECDSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc004, 'TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA'],
  [0xc005, 'TLS_ECDH_ECDSA_WITH_AES_256_CBC_SHA'],
  [0xc006, 'TLS_ECDHE_ECDSA_WITH_NULL_SHA'],
  [0xc007, 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA'],
  [0xc008, 'TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc009, 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA'],
  [0xc00a, 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA'],
  [0xc00b, 'TLS_ECDH_RSA_WITH_NULL_SHA'],
  [0xc00c, 'TLS_ECDH_RSA_WITH_RC4_128_SHA'],
  [0xc00d, 'TLS_ECDH_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc00e, 'TLS_ECDH_RSA_WITH_AES_128_CBC_SHA'],
  [0xc00f, 'TLS_ECDH_RSA_WITH_AES_256_CBC_SHA'],
  [0xc010, 'TLS_ECDHE_RSA_WITH_NULL_SHA'],
  [0xc011, 'TLS_ECDHE_RSA_WITH_RC4_128_SHA'],
  [0xc012, 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc013, 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'],
  [0xc014, 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA'],
  [0xc015, 'TLS_ECDH_anon_WITH_NULL_SHA'],
  [0xc016, 'TLS_ECDH_anon_WITH_RC4_128_SHA'],
  [0xc017, 'TLS_ECDH_anon_WITH_3DES_EDE_CBC_SHA'],
  [0xc018, 'TLS_ECDH_anon_WITH_AES_128_CBC_SHA'],
  [0xc019, 'TLS_ECDH_anon_WITH_AES_256_CBC_SHA'],
  [0xc01a, 'TLS_SRP_SHA_WITH_3DES_EDE_CBC_SHA'],
  [0xc01b, 'TLS_SRP_SHA_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc01c, 'TLS_SRP_SHA_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0xc01d, 'TLS_SRP_SHA_WITH_AES_128_CBC_SHA'],
  [0xc01e, 'TLS_SRP_SHA_RSA_WITH_AES_128_CBC_SHA'],
  [0xc01f, 'TLS_SRP_SHA_DSS_WITH_AES_128_CBC_SHA'],
  [0xc020, 'TLS_SRP_SHA_WITH_AES_256_CBC_SHA'],
  [0xc021, 'TLS_SRP_SHA_RSA_WITH_AES_256_CBC_SHA'],
  [0xc022, 'TLS_SRP_SHA_DSS_WITH_AES_256_CBC_SHA'],
  [0xc023, 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256'],
  [0xc024, 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384'],
  [0xc027, 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256'],
  [0xc028, 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384'],
  [0xc02b, 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
  [0xc02c, 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
  [0xc02f, 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
  [0xc030, 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
  [0xc033, 'TLS_ECDHE_PSK_WITH_RC4_128_SHA'],
  [0xc034, 'TLS_ECDHE_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0xc035, 'TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA'],
  [0xc036, 'TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA'],
  [0xc037, 'TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256'],
  [0xc038, 'TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA384'],
  [0xc039, 'TLS_ECDHE_PSK_WITH_NULL_SHA'],
  [0xc03a, 'TLS_ECDHE_PSK_WITH_NULL_SHA256'],
  [0xc03b, 'TLS_ECDHE_PSK_WITH_NULL_SHA384'],
  [0xc050, 'TLS_RSA_WITH_ARIA_128_GCM_SHA256'],
  [0xc051, 'TLS_RSA_WITH_ARIA_256_GCM_SHA384'],
  [0xc052, 'TLS_DHE_RSA_WITH_ARIA_128_GCM_SHA256'],
  [0xc053, 'TLS_DHE_RSA_WITH_ARIA_256_GCM_SHA384'],
  [0xc056, 'TLS_DHE_DSS_WITH_ARIA_128_GCM_SHA256'],
  [0xc057, 'TLS_DHE_DSS_WITH_ARIA_256_GCM_SHA384'],
  [0xc05c, 'TLS_ECDHE_ECDSA_WITH_ARIA_128_GCM_SHA256'],
  [0xc05d, 'TLS_ECDHE_ECDSA_WITH_ARIA_256_GCM_SHA384'],
  [0xc060, 'TLS_ECDHE_RSA_WITH_ARIA_128_GCM_SHA256'],
  [0xc061, 'TLS_ECDHE_RSA_WITH_ARIA_256_GCM_SHA384'],
  [0xc06a, 'TLS_PSK_WITH_ARIA_128_GCM_SHA256'],
  [0xc06b, 'TLS_PSK_WITH_ARIA_256_GCM_SHA384'],
  [0xc06c, 'TLS_DHE_PSK_WITH_ARIA_128_GCM_SHA256'],
  [0xc06d, 'TLS_DHE_PSK_WITH_ARIA_256_GCM_SHA384'],
  [0xc06e, 'TLS_RSA_PSK_WITH_ARIA_128_GCM_SHA256'],
  [0xc06f, 'TLS_RSA_PSK_WITH_ARIA_256_GCM_SHA384'],
  [0xc072, 'TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xc073, 'TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xc076, 'TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xc077, 'TLS_ECDHE_RSA_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xc094, 'TLS_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xc095, 'TLS_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xc096, 'TLS_DHE_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xc097, 'TLS_DHE_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xc098, 'TLS_RSA_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xc099, 'TLS_RSA_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xc09a, 'TLS_ECDHE_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xc09b, 'TLS_ECDHE_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xc09c, 'TLS_RSA_WITH_AES_128_CCM'],
  [0xc09d, 'TLS_RSA_WITH_AES_256_CCM'],
  [0xc09e, 'TLS_DHE_RSA_WITH_AES_128_CCM'],
  [0xc09f, 'TLS_DHE_RSA_WITH_AES_256_CCM'],
  [0xc0a0, 'TLS_RSA_WITH_AES_128_CCM_8'],
  [0xc0a1, 'TLS_RSA_WITH_AES_256_CCM_8'],
  [0xc0a2, 'TLS_DHE_RSA_WITH_AES_128_CCM_8'],
  [0xc0a3, 'TLS_DHE_RSA_WITH_AES_256_CCM_8'],
  [0xc0a4, 'TLS_PSK_WITH_AES_128_CCM'],
  [0xc0a5, 'TLS_PSK_WITH_AES_256_CCM'],
  [0xc0a6, 'TLS_DHE_PSK_WITH_AES_128_CCM'],
  [0xc0a7, 'TLS_DHE_PSK_WITH_AES_256_CCM'],
  [0xc0a8, 'TLS_PSK_WITH_AES_128_CCM_8'],
  [0xc0a9, 'TLS_PSK_WITH_AES_256_CCM_8'],
  [0xc0aa, 'TLS_PSK_DHE_WITH_AES_128_CCM_8'],
  [0xc0ab, 'TLS_PSK_DHE_WITH_AES_256_CCM_8'],
  [0xc0ac, 'TLS_ECDHE_ECDSA_WITH_AES_128_CCM'],
  [0xc0ad, 'TLS_ECDHE_ECDSA_WITH_AES_256_CCM'],
  [0xc0ae, 'TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8'],
  [0xc0af, 'TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8'],
  [0xcca8, 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xcca9, 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccaa, 'TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccab, 'TLS_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccac, 'TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccad, 'TLS_DHE_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccae, 'TLS_RSA_PSK_WITH_CHACHA20_POLY1305_SHA256'],
];

/** The key-exchange part of an IANA name: `ECDHE_RSA` of `TLS_ECDHE_RSA_WITH_…`; `TLS13` for TLS 1.3 suites. */
function keyExchange(name: string): string {
  const match = /^TLS_(.+?)_WITH_/.exec(name);
  return match === null ? 'TLS13' : (match[1] as string);
}

function weaknessOf(name: string): SuiteWeakness | undefined {
  const kx = keyExchange(name);
  if (/_NULL_|_WITH_NULL/.test(name)) return 'NULL encryption';
  if (/anon/.test(kx)) return 'anonymous key exchange';
  if (/EXPORT/.test(name)) return 'export grade';
  if (/_RC4_/.test(name)) return 'RC4';
  if (/_RC2_/.test(name)) return 'RC2';
  if (/_3DES_/.test(name)) return '3DES (64-bit block)';
  if (/_DES40_|_DES_CBC_/.test(name)) return 'single DES';
  if (/_IDEA_/.test(name)) return 'IDEA (64-bit block)';
  return undefined;
}

function classify(code: number, name: string): CipherSuite {
  const kx = keyExchange(name);
  const isTls13 = kx === 'TLS13';
  // DHE_PSK, ECDHE_PSK and OpenSSL's PSK_DHE are ephemeral too; anonymous DH is ephemeral but
  // unauthenticated, so it protects nothing against an active attacker and does not count.
  const isForwardSecret = isTls13 || (/(^|_)(EC)?DHE(_|$)/.test(kx) && !/anon/.test(kx));
  return { code, name, isTls13, isForwardSecret, weakness: weaknessOf(name) };
}

/** Every known suite, by code. */
export const cipherSuites: ReadonlyMap<number, CipherSuite> = new Map(
  REGISTRY.map(([code, name]) => [code, classify(code, name)]),
);

/** The suite of a code; an unknown code gets its hex form as name and no classification. */
export function suiteOf(code: number): CipherSuite {
  return (
    cipherSuites.get(code) ?? {
      code,
      name: `0x${code.toString(16).padStart(4, '0').toUpperCase()}`,
      isTls13: false,
      isForwardSecret: false,
      weakness: undefined,
    }
  );
}

/** The suite with this IANA name (Node's `getCipher().standardName`), if known. */
export function suiteNamed(name: string): CipherSuite | undefined {
  for (const suite of cipherSuites.values()) if (suite.name === name) return suite;
  return undefined;
}

/** Suites of TLS 1.2 and below (SSLv3 to TLS 1.2 offer these). */
export const legacySuites: readonly CipherSuite[] = [...cipherSuites.values()].filter((s) => !s.isTls13);
/** The TLS 1.3 suites. */
export const tls13Suites: readonly CipherSuite[] = [...cipherSuites.values()].filter((s) => s.isTls13);
/** Weak suites of TLS 1.2 and below: NULL, anonymous, EXPORT, RC4, RC2, DES, 3DES, IDEA. */
export const weakSuites: readonly CipherSuite[] = legacySuites.filter((s) => s.weakness !== undefined);
/** Forward-secret suites of TLS 1.2 and below (weak ones too: their weakness is reported apart). */
export const forwardSecretSuites: readonly CipherSuite[] = legacySuites.filter((s) => s.isForwardSecret);
