/**
 * The TLS cipher suites the probes know: code points and IANA names (the registry's names,
 * as `openssl ciphers -stdname` prints them), classified by what makes a suite weak and by
 * whether its key exchange is forward secret. The list is every suite Debian's OpenSSL 3 knows
 * plus the legacy ones it no longer builds (RC4, DES, 3DES, EXPORT, static ECDH), so a probe can
 * offer what an old server might still accept.
 */

/** What makes a suite weak; undefined for a suite that is not. */
export type SuiteWeakness = 'NULL encryption' | 'anonymous key exchange' | 'export grade' | 'RC4' | 'single DES' | '3DES (64-bit block)' | 'IDEA (64-bit block)' | 'RC2';

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
  [0x000A, 'TLS_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0x000B, 'TLS_DH_DSS_EXPORT_WITH_DES40_CBC_SHA'],
  [0x000C, 'TLS_DH_DSS_WITH_DES_CBC_SHA'],
  [0x000D, 'TLS_DH_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0x000E, 'TLS_DH_RSA_EXPORT_WITH_DES40_CBC_SHA'],
  [0x000F, 'TLS_DH_RSA_WITH_DES_CBC_SHA'],
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
  [0x001A, 'TLS_DH_anon_WITH_DES_CBC_SHA'],
  [0x001B, 'TLS_DH_anon_WITH_3DES_EDE_CBC_SHA'],
  [0x002C, 'TLS_PSK_WITH_NULL_SHA'],
  [0x002D, 'TLS_DHE_PSK_WITH_NULL_SHA'],
  [0x002E, 'TLS_RSA_PSK_WITH_NULL_SHA'],
  [0x002F, 'TLS_RSA_WITH_AES_128_CBC_SHA'],
  [0x0032, 'TLS_DHE_DSS_WITH_AES_128_CBC_SHA'],
  [0x0033, 'TLS_DHE_RSA_WITH_AES_128_CBC_SHA'],
  [0x0034, 'TLS_DH_anon_WITH_AES_128_CBC_SHA'],
  [0x0035, 'TLS_RSA_WITH_AES_256_CBC_SHA'],
  [0x0038, 'TLS_DHE_DSS_WITH_AES_256_CBC_SHA'],
  [0x0039, 'TLS_DHE_RSA_WITH_AES_256_CBC_SHA'],
  [0x003A, 'TLS_DH_anon_WITH_AES_256_CBC_SHA'],
  [0x003B, 'TLS_RSA_WITH_NULL_SHA256'],
  [0x003C, 'TLS_RSA_WITH_AES_128_CBC_SHA256'],
  [0x003D, 'TLS_RSA_WITH_AES_256_CBC_SHA256'],
  [0x0040, 'TLS_DHE_DSS_WITH_AES_128_CBC_SHA256'],
  [0x0041, 'TLS_RSA_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0044, 'TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0045, 'TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0046, 'TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA'],
  [0x0067, 'TLS_DHE_RSA_WITH_AES_128_CBC_SHA256'],
  [0x006A, 'TLS_DHE_DSS_WITH_AES_256_CBC_SHA256'],
  [0x006B, 'TLS_DHE_RSA_WITH_AES_256_CBC_SHA256'],
  [0x006C, 'TLS_DH_anon_WITH_AES_128_CBC_SHA256'],
  [0x006D, 'TLS_DH_anon_WITH_AES_256_CBC_SHA256'],
  [0x0084, 'TLS_RSA_WITH_CAMELLIA_256_CBC_SHA'],
  [0x0087, 'TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA'],
  [0x0088, 'TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA'],
  [0x0089, 'TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA'],
  [0x008A, 'TLS_PSK_WITH_RC4_128_SHA'],
  [0x008B, 'TLS_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x008C, 'TLS_PSK_WITH_AES_128_CBC_SHA'],
  [0x008D, 'TLS_PSK_WITH_AES_256_CBC_SHA'],
  [0x008E, 'TLS_DHE_PSK_WITH_RC4_128_SHA'],
  [0x008F, 'TLS_DHE_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x0090, 'TLS_DHE_PSK_WITH_AES_128_CBC_SHA'],
  [0x0091, 'TLS_DHE_PSK_WITH_AES_256_CBC_SHA'],
  [0x0092, 'TLS_RSA_PSK_WITH_RC4_128_SHA'],
  [0x0093, 'TLS_RSA_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x0094, 'TLS_RSA_PSK_WITH_AES_128_CBC_SHA'],
  [0x0095, 'TLS_RSA_PSK_WITH_AES_256_CBC_SHA'],
  [0x009C, 'TLS_RSA_WITH_AES_128_GCM_SHA256'],
  [0x009D, 'TLS_RSA_WITH_AES_256_GCM_SHA384'],
  [0x009E, 'TLS_DHE_RSA_WITH_AES_128_GCM_SHA256'],
  [0x009F, 'TLS_DHE_RSA_WITH_AES_256_GCM_SHA384'],
  [0x00A2, 'TLS_DHE_DSS_WITH_AES_128_GCM_SHA256'],
  [0x00A3, 'TLS_DHE_DSS_WITH_AES_256_GCM_SHA384'],
  [0x00A6, 'TLS_DH_anon_WITH_AES_128_GCM_SHA256'],
  [0x00A7, 'TLS_DH_anon_WITH_AES_256_GCM_SHA384'],
  [0x00A8, 'TLS_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00A9, 'TLS_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00AA, 'TLS_DHE_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00AB, 'TLS_DHE_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00AC, 'TLS_RSA_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00AD, 'TLS_RSA_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00AE, 'TLS_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00AF, 'TLS_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00B0, 'TLS_PSK_WITH_NULL_SHA256'],
  [0x00B1, 'TLS_PSK_WITH_NULL_SHA384'],
  [0x00B2, 'TLS_DHE_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00B3, 'TLS_DHE_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00B4, 'TLS_DHE_PSK_WITH_NULL_SHA256'],
  [0x00B5, 'TLS_DHE_PSK_WITH_NULL_SHA384'],
  [0x00B6, 'TLS_RSA_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00B7, 'TLS_RSA_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00B8, 'TLS_RSA_PSK_WITH_NULL_SHA256'],
  [0x00B9, 'TLS_RSA_PSK_WITH_NULL_SHA384'],
  [0x00BA, 'TLS_RSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00BD, 'TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00BE, 'TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00BF, 'TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA256'],
  [0x00C0, 'TLS_RSA_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x00C3, 'TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x00C4, 'TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x00C5, 'TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA256'],
  [0x1301, 'TLS_AES_128_GCM_SHA256'],
  [0x1302, 'TLS_AES_256_GCM_SHA384'],
  [0x1303, 'TLS_CHACHA20_POLY1305_SHA256'],
  [0x1304, 'TLS_AES_128_CCM_SHA256'],
  [0x1305, 'TLS_AES_128_CCM_8_SHA256'],
  [0xC001, 'TLS_ECDH_ECDSA_WITH_NULL_SHA'],
  [0xC002, 'TLS_ECDH_ECDSA_WITH_RC4_128_SHA'],
  [0xC003, 'TLS_ECDH_ECDSA_WITH_3DES_EDE_CBC_SHA'],
  [0xC004, 'TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA'],
  [0xC005, 'TLS_ECDH_ECDSA_WITH_AES_256_CBC_SHA'],
  [0xC006, 'TLS_ECDHE_ECDSA_WITH_NULL_SHA'],
  [0xC007, 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA'],
  [0xC008, 'TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA'],
  [0xC009, 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA'],
  [0xC00A, 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA'],
  [0xC00B, 'TLS_ECDH_RSA_WITH_NULL_SHA'],
  [0xC00C, 'TLS_ECDH_RSA_WITH_RC4_128_SHA'],
  [0xC00D, 'TLS_ECDH_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xC00E, 'TLS_ECDH_RSA_WITH_AES_128_CBC_SHA'],
  [0xC00F, 'TLS_ECDH_RSA_WITH_AES_256_CBC_SHA'],
  [0xC010, 'TLS_ECDHE_RSA_WITH_NULL_SHA'],
  [0xC011, 'TLS_ECDHE_RSA_WITH_RC4_128_SHA'],
  [0xC012, 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xC013, 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'],
  [0xC014, 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA'],
  [0xC015, 'TLS_ECDH_anon_WITH_NULL_SHA'],
  [0xC016, 'TLS_ECDH_anon_WITH_RC4_128_SHA'],
  [0xC017, 'TLS_ECDH_anon_WITH_3DES_EDE_CBC_SHA'],
  [0xC018, 'TLS_ECDH_anon_WITH_AES_128_CBC_SHA'],
  [0xC019, 'TLS_ECDH_anon_WITH_AES_256_CBC_SHA'],
  [0xC01A, 'TLS_SRP_SHA_WITH_3DES_EDE_CBC_SHA'],
  [0xC01B, 'TLS_SRP_SHA_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xC01C, 'TLS_SRP_SHA_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0xC01D, 'TLS_SRP_SHA_WITH_AES_128_CBC_SHA'],
  [0xC01E, 'TLS_SRP_SHA_RSA_WITH_AES_128_CBC_SHA'],
  [0xC01F, 'TLS_SRP_SHA_DSS_WITH_AES_128_CBC_SHA'],
  [0xC020, 'TLS_SRP_SHA_WITH_AES_256_CBC_SHA'],
  [0xC021, 'TLS_SRP_SHA_RSA_WITH_AES_256_CBC_SHA'],
  [0xC022, 'TLS_SRP_SHA_DSS_WITH_AES_256_CBC_SHA'],
  [0xC023, 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256'],
  [0xC024, 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384'],
  [0xC027, 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256'],
  [0xC028, 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384'],
  [0xC02B, 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
  [0xC02C, 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
  [0xC02F, 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
  [0xC030, 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
  [0xC033, 'TLS_ECDHE_PSK_WITH_RC4_128_SHA'],
  [0xC034, 'TLS_ECDHE_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0xC035, 'TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA'],
  [0xC036, 'TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA'],
  [0xC037, 'TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256'],
  [0xC038, 'TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA384'],
  [0xC039, 'TLS_ECDHE_PSK_WITH_NULL_SHA'],
  [0xC03A, 'TLS_ECDHE_PSK_WITH_NULL_SHA256'],
  [0xC03B, 'TLS_ECDHE_PSK_WITH_NULL_SHA384'],
  [0xC050, 'TLS_RSA_WITH_ARIA_128_GCM_SHA256'],
  [0xC051, 'TLS_RSA_WITH_ARIA_256_GCM_SHA384'],
  [0xC052, 'TLS_DHE_RSA_WITH_ARIA_128_GCM_SHA256'],
  [0xC053, 'TLS_DHE_RSA_WITH_ARIA_256_GCM_SHA384'],
  [0xC056, 'TLS_DHE_DSS_WITH_ARIA_128_GCM_SHA256'],
  [0xC057, 'TLS_DHE_DSS_WITH_ARIA_256_GCM_SHA384'],
  [0xC05C, 'TLS_ECDHE_ECDSA_WITH_ARIA_128_GCM_SHA256'],
  [0xC05D, 'TLS_ECDHE_ECDSA_WITH_ARIA_256_GCM_SHA384'],
  [0xC060, 'TLS_ECDHE_RSA_WITH_ARIA_128_GCM_SHA256'],
  [0xC061, 'TLS_ECDHE_RSA_WITH_ARIA_256_GCM_SHA384'],
  [0xC06A, 'TLS_PSK_WITH_ARIA_128_GCM_SHA256'],
  [0xC06B, 'TLS_PSK_WITH_ARIA_256_GCM_SHA384'],
  [0xC06C, 'TLS_DHE_PSK_WITH_ARIA_128_GCM_SHA256'],
  [0xC06D, 'TLS_DHE_PSK_WITH_ARIA_256_GCM_SHA384'],
  [0xC06E, 'TLS_RSA_PSK_WITH_ARIA_128_GCM_SHA256'],
  [0xC06F, 'TLS_RSA_PSK_WITH_ARIA_256_GCM_SHA384'],
  [0xC072, 'TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xC073, 'TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xC076, 'TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xC077, 'TLS_ECDHE_RSA_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xC094, 'TLS_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xC095, 'TLS_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xC096, 'TLS_DHE_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xC097, 'TLS_DHE_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xC098, 'TLS_RSA_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xC099, 'TLS_RSA_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xC09A, 'TLS_ECDHE_PSK_WITH_CAMELLIA_128_CBC_SHA256'],
  [0xC09B, 'TLS_ECDHE_PSK_WITH_CAMELLIA_256_CBC_SHA384'],
  [0xC09C, 'TLS_RSA_WITH_AES_128_CCM'],
  [0xC09D, 'TLS_RSA_WITH_AES_256_CCM'],
  [0xC09E, 'TLS_DHE_RSA_WITH_AES_128_CCM'],
  [0xC09F, 'TLS_DHE_RSA_WITH_AES_256_CCM'],
  [0xC0A0, 'TLS_RSA_WITH_AES_128_CCM_8'],
  [0xC0A1, 'TLS_RSA_WITH_AES_256_CCM_8'],
  [0xC0A2, 'TLS_DHE_RSA_WITH_AES_128_CCM_8'],
  [0xC0A3, 'TLS_DHE_RSA_WITH_AES_256_CCM_8'],
  [0xC0A4, 'TLS_PSK_WITH_AES_128_CCM'],
  [0xC0A5, 'TLS_PSK_WITH_AES_256_CCM'],
  [0xC0A6, 'TLS_DHE_PSK_WITH_AES_128_CCM'],
  [0xC0A7, 'TLS_DHE_PSK_WITH_AES_256_CCM'],
  [0xC0A8, 'TLS_PSK_WITH_AES_128_CCM_8'],
  [0xC0A9, 'TLS_PSK_WITH_AES_256_CCM_8'],
  [0xC0AA, 'TLS_PSK_DHE_WITH_AES_128_CCM_8'],
  [0xC0AB, 'TLS_PSK_DHE_WITH_AES_256_CCM_8'],
  [0xC0AC, 'TLS_ECDHE_ECDSA_WITH_AES_128_CCM'],
  [0xC0AD, 'TLS_ECDHE_ECDSA_WITH_AES_256_CCM'],
  [0xC0AE, 'TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8'],
  [0xC0AF, 'TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8'],
  [0xCCA8, 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xCCA9, 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xCCAA, 'TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xCCAB, 'TLS_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xCCAC, 'TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xCCAD, 'TLS_DHE_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xCCAE, 'TLS_RSA_PSK_WITH_CHACHA20_POLY1305_SHA256'],
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
export const cipherSuites: ReadonlyMap<number, CipherSuite> = new Map(REGISTRY.map(([code, name]) => [code, classify(code, name)]));

/** The suite of a code; an unknown code gets its hex form as name and no classification. */
export function suiteOf(code: number): CipherSuite {
  return cipherSuites.get(code) ?? { code, name: `0x${code.toString(16).padStart(4, '0').toUpperCase()}`, isTls13: false, isForwardSecret: false, weakness: undefined };
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
