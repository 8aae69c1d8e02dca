import 'reflect-metadata';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
  type X509Certificate,
} from '@peculiar/x509';
import type { ChildProcess } from 'node:child_process';
import { spawnOwned } from './child-processes.ts';
import { randomBytes, webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

/** A certificate and key on disk, for `openssl s_server -cert … -key …`. */
export interface IssuedCertificate {
  certPem: string;
  certPath: string;
  keyPath: string;
}

/** What a test certificate looks like. */
export interface CertificateSpec {
  /** File-name label. */
  label: string;
  /** Subject CN and SAN entries (host names or IP literals). */
  names: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** RSA bits (default 2048). */
  rsaBits?: number;
  /** Signature hash (default SHA-256). */
  hash?: 'SHA-256' | 'SHA-1';
  /** Sign with its own key instead of the test CA. */
  isSelfSigned?: boolean;
}

const DAY = 86_400_000;
const subtle = webcrypto.subtle as unknown as SubtleCrypto;

async function rsaKeys(bits: number, hash: string): Promise<CryptoKeyPair> {
  return subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash },
    true,
    ['sign', 'verify'],
  ) as Promise<CryptoKeyPair>;
}

/** The same private key, usable to sign with another hash (WebCrypto binds the hash to the key). */
async function withHash(key: CryptoKey, hash: string): Promise<CryptoKey> {
  const pkcs8 = await subtle.exportKey('pkcs8', key);
  return subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash }, true, ['sign']);
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
}

const serial = (): string => `01${randomBytes(8).toString('hex')}`;

/**
 * A throw-away PKI for TLS tests, generated with @peculiar/x509 into `dir`: one CA (its PEM is
 * what the assessor is told to trust) and leaf certificates with chosen names, dates, key sizes
 * and signature hashes.
 */
export class TestPki {
  private constructor(
    readonly dir: string,
    readonly caPem: string,
    private readonly ca: X509Certificate,
    private readonly caKeys: CryptoKeyPair,
    private readonly leafKeys: Map<number, CryptoKeyPair>,
  ) {}

  /** Creates the CA (RSA 2048, valid from yesterday for ten years). */
  static async create(dir: string): Promise<TestPki> {
    const caKeys = await rsaKeys(2048, 'SHA-256');
    const ca = await X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: 'CN=Perimeter Test CA, O=Perimeter Tests',
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + 3650 * DAY),
      keys: caKeys,
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
        await SubjectKeyIdentifierExtension.create(caKeys.publicKey),
      ],
    });
    const caPem = ca.toString('pem');
    writeFileSync(join(dir, 'ca.pem'), caPem);
    return new TestPki(dir, caPem, ca, caKeys, new Map());
  }

  private async keysOf(bits: number): Promise<CryptoKeyPair> {
    // One key per size, shared by the leaves: RSA generation is the slow part.
    let keys = this.leafKeys.get(bits);
    if (keys === undefined) {
      keys = await rsaKeys(bits, 'SHA-256');
      this.leafKeys.set(bits, keys);
    }
    return keys;
  }

  /** Issues (or self-signs) a leaf certificate and writes `<label>.crt` and `<label>.key`. */
  async issue(spec: CertificateSpec): Promise<IssuedCertificate> {
    const keys = await this.keysOf(spec.rsaBits ?? 2048);
    const hash = spec.hash ?? 'SHA-256';
    const subject = `CN=${spec.names[0] ?? 'unnamed'}`;
    const san = new SubjectAlternativeNameExtension(
      spec.names.map((n) => (isIP(n) === 0 ? { type: 'dns' as const, value: n } : { type: 'ip' as const, value: n })),
    );
    const common = {
      serialNumber: serial(),
      notBefore: spec.notBefore ?? new Date(Date.now() - DAY),
      notAfter: spec.notAfter ?? new Date(Date.now() + 365 * DAY),
      signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash },
    };
    const leafExtensions = [
      new BasicConstraintsExtension(false),
      san,
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ];
    const cert = spec.isSelfSigned
      ? await X509CertificateGenerator.createSelfSigned({
          ...common,
          name: subject,
          keys: { publicKey: keys.publicKey, privateKey: await withHash(keys.privateKey, hash) },
          extensions: leafExtensions,
        })
      : await X509CertificateGenerator.create({
          ...common,
          subject,
          issuer: this.ca.subject,
          publicKey: keys.publicKey,
          signingKey: await withHash(this.caKeys.privateKey, hash),
          extensions: [...leafExtensions, await AuthorityKeyIdentifierExtension.create(this.ca)],
        });
    const certPem = cert.toString('pem');
    const certPath = join(this.dir, `${spec.label}.crt`);
    const keyPath = join(this.dir, `${spec.label}.key`);
    writeFileSync(certPath, certPem);
    writeFileSync(keyPath, await keyPem(keys.privateKey));
    return { certPem, certPath, keyPath };
  }
}

/** A running `openssl s_server`. */
export interface TlsServer {
  port: number;
  /** The command line, for messages. */
  args: string[];
  stop(): Promise<void>;
}

/**
 * Starts `openssl s_server -www` on 127.0.0.1 (ephemeral port) with the certificate and the
 * extra options (`-tls1_2`, `-no_tls1_3`, `-cipher 'ALL:@SECLEVEL=0'` …), and waits for its
 * ACCEPT line. s_server serves one connection at a time; concurrent clients wait in the backlog.
 */
export async function startTlsServer(cert: IssuedCertificate, options: string[] = []): Promise<TlsServer> {
  const args = ['s_server', '-accept', '127.0.0.1:0', '-cert', cert.certPath, '-key', cert.keyPath, '-www', ...options];
  const child: ChildProcess = spawnOwned('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`openssl s_server did not start: ${output}`)), 10_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('latin1');
      const match = /ACCEPT 127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`openssl s_server exited (${code}): ${output}`));
    });
  });
  // Keep draining: s_server logs each connection, and a full pipe would block it.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    port,
    args,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
