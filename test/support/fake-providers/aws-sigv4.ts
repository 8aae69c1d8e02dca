import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Signature Version 4 as AWS checks it (docs: "Create a signed AWS API request"): the local AWS
 * server recomputes the signature of each request from the secret of the key id it names, so a
 * wrong secret is refused as AWS would refuse it (SignatureDoesNotMatch), not merely noticed.
 */

/** What the Authorization header says. */
export interface SigV4Authorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses `AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/ec2/aws4_request, SignedHeaders=…, Signature=…`. */
export function parseAuthorization(header: string | undefined): SigV4Authorization | undefined {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header ?? '',
    );
  if (m === null) return undefined;
  const [, accessKeyId, date, region, service, signed, signature] = m as unknown as string[];
  return {
    accessKeyId: accessKeyId as string,
    date: date as string,
    region: region as string,
    service: service as string,
    signedHeaders: (signed as string).split(';'),
    signature: signature as string,
  };
}

/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
function escapeUri(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The canonical path: the request's (already encoded) path, normalised and encoded once more. */
function canonicalPath(rawPath: string): string {
  const segments: string[] = [];
  for (const s of rawPath.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const normalised = `/${segments.join('/')}${segments.length > 0 && rawPath.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalised).replace(/%2F/g, '/');
}

function canonicalQuery(search: URLSearchParams): string {
  return [...search.entries()]
    .filter(([k]) => k.toLowerCase() !== 'x-amz-signature')
    .map(([k, v]) => `${escapeUri(k)}=${escapeUri(v)}`)
    .sort()
    .join('&');
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** The signature AWS would compute for this request with `secret`. */
export function expectedSignature(
  auth: SigV4Authorization,
  request: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  secret: string,
): string {
  const url = new URL(request.url, 'http://local');
  const headerLines = [...auth.signedHeaders]
    .sort()
    .map((name) => {
      const raw = request.headers[name];
      const value = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
      return `${name}:${value.trim().replace(/\s+/g, ' ')}`;
    })
    .join('\n');
  const contentHash = request.headers['x-amz-content-sha256'];
  const payloadHash = typeof contentHash === 'string' ? contentHash : sha256(request.body);
  const canonical = [
    request.method,
    canonicalPath(url.pathname),
    canonicalQuery(url.searchParams),
    `${headerLines}\n`,
    [...auth.signedHeaders].sort().join(';'),
    payloadHash,
  ].join('\n');
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonical)}`;
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, auth.date), auth.region), auth.service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}
