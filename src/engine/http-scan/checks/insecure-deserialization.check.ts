import type { Highlight } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { isJsonType } from '../check-kit/discovery.ts';
import { jsonLeaves, parseCookiePairs, routePattern } from '../check-kit/injection.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';

/** Stable id of the insecure deserialisation check. */
export const insecureDeserializationCheckId = 'insecure-deserialization';

/** The kind of finding the check reports (exported for the catalogue's tests). */
export const insecureDeserializationKind: FindingKind = {
  checkId: insecureDeserializationCheckId,
  title: 'Serialized object handed to the client',
  cwe: 502,
  // A signature, not an exploit: whether a gadget chain exists is not known (AC:H), impacts partial.
  cvssVector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:L',
  cvss2Vector: 'AV:N/AC:H/Au:N/C:P/I:P/A:P',
  severity: 'medium',
  owasp: 'A08:2021-Software and Data Integrity Failures',
  description:
    'The site hands the client a serialized object of its platform (a cookie, a hidden form field, a link parameter or a JSON value) and presumably deserializes what comes back. This is a signature seen in the answer, not an exploit that was run.',
  risk: 'Deserializing data a client can change lets an attacker choose the objects the server builds: with the classes the application loads (a gadget chain) or node-serialize functions this runs code on the server, otherwise it still forges the state the object carries (a user id, a role, a price).',
  remediation:
    'Do not deserialize data that comes from clients with a native serializer (node-serialize, PHP `unserialize`, Java `ObjectInputStream`, .NET `BinaryFormatter`, Python `pickle`). Send plain JSON parsed into a fixed shape, keep state on the server behind a random id, or sign the value (an HMAC checked before anything is parsed) and allow-list the classes a deserializer may build.',
  references: [
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Deserialization_Cheat_Sheet.html',
      name: 'OWASP Deserialization Cheat Sheet',
    },
    { link: 'https://cwe.mitre.org/data/definitions/502.html', name: 'CWE-502: Deserialization of Untrusted Data' },
  ],
};

/** A serialization format recognised in a value. */
export interface SerializedMarker {
  format: string;
  /** How the value was encoded around it: `raw`, `URL-encoded`, `base64`, `hex`. */
  encoding: string;
}

/** Signatures on the decoded text. */
const TEXT_SIGNATURES: Array<{ format: string; pattern: RegExp }> = [
  { format: 'Node.js node-serialize (a serialized function, _$$ND_FUNC$$_)', pattern: /_\$\$ND_FUNC\$\$_/ },
  { format: 'PHP serialize() object', pattern: /\b[OC]:\d{1,4}:"[A-Za-z_\\][\w\\]{0,200}":\d{1,5}:\{/ },
  { format: 'PHP serialize() array', pattern: /^a:\d{1,5}:\{(?:[is]:\d|\})/ },
];

/** Signatures on the decoded bytes: stream headers of binary serializers. */
function binaryFormat(bytes: Buffer): string | undefined {
  if (bytes.length >= 4 && bytes[0] === 0xac && bytes[1] === 0xed && bytes[2] === 0x00 && bytes[3] === 0x05)
    return 'Java serialization stream (ObjectOutputStream, aced0005)';
  // BinaryFormatter's SerializationHeaderRecord: record type 0, root id 1, header id -1.
  if (bytes.length >= 9 && bytes.subarray(0, 9).equals(Buffer.from([0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff])))
    return '.NET BinaryFormatter stream';
  // A pickle of protocol 2 to 5: PROTO then the version, STOP ('.') last.
  if (bytes.length >= 4 && bytes[0] === 0x80 && bytes[1]! >= 2 && bytes[1]! <= 5 && bytes[bytes.length - 1] === 0x2e)
    return 'Python pickle';
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/_-]{12,}={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2}){8,}$/;

/**
 * The serialization format a value holds, raw or URL-, base64- or hex-encoded: node-serialize
 * functions, PHP serialized objects and arrays, Java serialization (`rO0AB` in base64,
 * `aced0005` in hex), .NET BinaryFormatter (`AAEAAAD/////`), Python pickle (`gASV`, `gAJ`).
 */
export function findSerializedMarker(value: string): SerializedMarker | undefined {
  const texts: Array<{ text: string; encoding: string }> = [{ text: value, encoding: 'raw' }];
  if (value.includes('%')) {
    try {
      texts.push({ text: decodeURIComponent(value.replace(/\+/g, ' ')), encoding: 'URL-encoded' });
    } catch {
      // Not URL-encoded after all.
    }
  }
  for (const { text, encoding } of texts) {
    for (const { format, pattern } of TEXT_SIGNATURES) if (pattern.test(text)) return { format, encoding };
    const trimmed = text.trim();
    if (HEX.test(trimmed)) {
      const format = binaryFormat(Buffer.from(trimmed, 'hex'));
      if (format !== undefined) return { format, encoding: 'hex' };
    }
    if (BASE64.test(trimmed)) {
      const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      const format = binaryFormat(bytes);
      if (format !== undefined) return { format, encoding: 'base64' };
      const decoded = bytes.toString('latin1');
      for (const signature of TEXT_SIGNATURES)
        if (signature.pattern.test(decoded)) return { format: signature.format, encoding: 'base64' };
    }
  }
  return undefined;
}

/** One value the site handed the client, where it goes back, and how to point at it in the answer. */
interface HandedValue {
  /** `cookie NAME`, `hidden form field NAME`, … */
  what: string;
  value: string;
  /** The finding's location, origin included. */
  location: string;
  /** The "once" key: the name and the route the value goes back to. */
  key: string;
  highlight?: Highlight;
}

/** A URL resolved against the page, or undefined. */
function resolve(reference: string, page: CrawledPage): URL | undefined {
  try {
    const url = new URL(reference, page.url);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The values a page hands the client: cookies it sets, form field values, link query values, JSON string values. */
function handedValues(page: CrawledPage): HandedValue[] {
  const out: HandedValue[] = [];
  const origin = page.originText;
  for (const header of page.exchange.headers) {
    if (header.name !== 'set-cookie') continue;
    const [name, value] = parseCookiePairs(header.value.split(';')[0])[0] ?? [];
    if (name === undefined || value === undefined || value === '') continue;
    // A cookie goes back on every path: once per origin.
    out.push({
      what: `cookie ${name}`,
      value,
      location: `${origin}/?cookie=${encodeURIComponent(name)}`,
      key: `cookie ${origin} ${name}`,
      highlight: { field: 'response.headers.set-cookie', value: header.value, offset: 0, length: header.value.length },
    });
  }
  for (const form of page.links?.forms ?? []) {
    const action = resolve(form.action === '' ? page.url.href : form.action, page);
    if (action === undefined || action.origin !== page.url.origin) continue;
    const isPost = form.method.toUpperCase() === 'POST';
    const route = routePattern(action.pathname);
    for (const [name, value] of form.fields) {
      if (value.length < 8) continue;
      const where = isPost ? `?body=${encodeURIComponent(name)}` : `?${encodeURIComponent(name)}=`;
      out.push({
        what: `form field ${name}`,
        value,
        location: `${origin}${route}${where}`,
        key: `form ${route} ${name}`,
      });
    }
  }
  for (const link of page.links?.links ?? []) {
    if (!link.includes('?')) continue;
    const url = resolve(link, page);
    if (url === undefined || url.origin !== page.url.origin) continue;
    const route = routePattern(url.pathname);
    for (const [name, value] of url.searchParams) {
      if (value.length < 8) continue;
      out.push({
        what: `link parameter ${name}`,
        value,
        location: `${origin}${route}?${encodeURIComponent(name)}=`,
        key: `query ${route} ${name}`,
      });
    }
  }
  if (isJsonType(headerValue(page.exchange, 'content-type'))) {
    const route = routePattern(page.url.pathname);
    let document: unknown;
    try {
      document = JSON.parse(page.exchange.body) as unknown;
    } catch {
      document = undefined;
    }
    for (const leaf of jsonLeaves(document)) {
      if (leaf.value.length < 8) continue;
      out.push({
        what: `JSON value ${leaf.name}`,
        value: leaf.value,
        location: `${origin}${route}?json=${encodeURIComponent(leaf.name)}`,
        key: `json ${route} ${leaf.name}`,
      });
    }
  }
  return out;
}

/** Where a value shows in the body (raw, with `"` escaped as HTML or JSON writes it, or URL-encoded). */
function bodyOffset(body: string, value: string): { value: string; offset: number } | undefined {
  const forms = [
    value,
    value.replace(/"/g, '&quot;'),
    value.replace(/"/g, '&#34;'),
    JSON.stringify(value).slice(1, -1),
    encodeURIComponent(value),
  ];
  for (const form of forms) {
    const offset = body.indexOf(form);
    if (offset >= 0) return { value: form, offset };
  }
  return undefined;
}

/**
 * Insecure deserialisation signatures (passive): in the cookies a site sets and in the values it
 * hands the client to send back (form fields, hidden ones included, query values of its links,
 * string values of its JSON answers), raw or URL-, base64- or hex-encoded, the marks of a
 * native serializer: node-serialize `_$$ND_FUNC$$_`, PHP serialized objects (`O:4:"User":2:{`)
 * and arrays, Java serialization (`rO0AB`, `aced0005`), .NET BinaryFormatter (`AAEAAAD/////`),
 * Python pickle (`gASV`). Medium: a signature, not an exploit. Once per cookie name and origin,
 * once per other name and route.
 */
export function createInsecureDeserializationCheck(): PageCheck {
  const reported = new Set<string>();
  return {
    id: insecureDeserializationCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      for (const handed of handedValues(page)) {
        if (reported.has(handed.key)) continue;
        const marker = findSerializedMarker(handed.value);
        if (marker === undefined) continue;
        reported.add(handed.key);
        const evidence = handed.highlight === undefined ? bodyOffset(page.exchange.body, handed.value) : undefined;
        await context.report(
          buildFinding(insecureDeserializationKind, {
            location: handed.location,
            host: page.origin.host,
            exchange: page.exchange,
            title: `${insecureDeserializationKind.title}: ${handed.what}`,
            observation: `${page.url.href} hands the client ${handed.what} holding a ${marker.format} (${marker.encoding}); the application presumably deserializes it when it comes back. A signature, not an exploit: no payload was sent.`,
            ...(evidence === undefined ? {} : { evidence }),
            ...(handed.highlight === undefined ? {} : { extraHighlights: [handed.highlight] }),
          }),
        );
      }
    },
  };
}
