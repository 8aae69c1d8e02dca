/**
 * Seeded generators of hostile request parts for the fuzz test: every choice comes from one
 * PRNG, so a seed replays the same sequence of requests (tokens the server issued aside).
 */

/** A small, fast, seeded PRNG (mulberry32): uniform floats in [0, 1). */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += '0123456789abcdef'[this.int(0, 15)];
    return out;
  }

  uuid(): string {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-a${this.hex(3)}-${this.hex(12)}`;
  }
}

/** Texts that broke parsers and validators somewhere, at some time. */
export const nastyTexts: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\r\n',
  '\t',
  '..',
  '../../etc/passwd',
  '%',
  '%ZZ',
  '%00',
  '%2F',
  '%C0%AF',
  'ü',
  'bücher.example',
  '😀',
  '\uFEFF',
  '\uD800',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${jndi:ldap://x}',
  '{{7*7}}',
  'null',
  'true',
  '-1',
  '0',
  '1e309',
  '9007199254740993',
  'NaN',
  '[]',
  '{}',
  'a'.repeat(300),
  'x'.repeat(5000),
  '*',
  '*.*',
  '.',
  'example.test.',
  'EXAMPLE.TEST',
  '127.0.0.1',
  '[::1]:53',
  '0.0.0.0',
  '10.0.0.1',
  '169.254.169.254',
  '256.256.256.256',
  'xn--',
  '-a-.test',
  'a..b',
  '2026-11-22T10:00:00Z',
  '2026-11-22T10:00:00+0100',
  '1700000000',
  '0000-00-00T00:00:00Z',
  'weekly',
  'Admin',
  'high',
  'surface-monitoring',
  'accepted_risk',
];

/** A random text: a nasty one, a random token-like one, or random bytes of printable and odd characters. */
export function randomText(rng: Prng): string {
  const roll = rng.next();
  if (roll < 0.45) return rng.pick(nastyTexts);
  if (roll < 0.6) return rng.hex(32);
  if (roll < 0.7) return rng.uuid();
  const alphabet = 'abcXYZ019-_.:/@%?&=#+ \u0000\u00e9\u4e2d';
  let out = '';
  for (let i = rng.int(0, 40); i > 0; i -= 1) out += alphabet[rng.int(0, alphabet.length - 1)];
  return out;
}

/** A value of any JSON type, nested a little. */
export function randomJson(rng: Prng, depth = 0): unknown {
  const roll = rng.next();
  if (roll < 0.25) return randomText(rng);
  if (roll < 0.4) return rng.pick([0, -1, 1, 7, 65536, 1e20, -0.5, 2 ** 53 + 1]);
  if (roll < 0.5) return rng.chance(0.5);
  if (roll < 0.55) return null;
  if (depth > 2) return randomText(rng);
  if (roll < 0.75) return Array.from({ length: rng.int(0, 4) }, () => randomJson(rng, depth + 1));
  const obj: Record<string, unknown> = {};
  for (let i = rng.int(0, 4); i > 0; i -= 1) obj[randomText(rng).slice(0, 20)] = randomJson(rng, depth + 1);
  return obj;
}

/** The parts of a JSON schema (TypeBox's) the generators read. */
export interface SchemaLike {
  type?: string;
  anyOf?: SchemaLike[];
  const?: unknown;
  properties?: Record<string, SchemaLike>;
  required?: string[];
  items?: SchemaLike;
  examples?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  format?: string;
  pattern?: string;
}

/** Valid texts for fields the schema leaves open, by field name (real tokens, loopback servers). */
export type KnownValues = (field: string) => string | undefined;

/** A value the schema accepts (the known value of its field when there is one). */
export function validValue(rng: Prng, schema: SchemaLike | undefined, field: string, known: KnownValues): unknown {
  if (schema === undefined) return known(field) ?? 'fuzz';
  if (schema.anyOf !== undefined)
    return validValue(rng, rng.pick(schema.anyOf.filter((s) => s.type !== 'null')), field, known);
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(name) === true || rng.chance(0.5)) out[name] = validValue(rng, prop, name, known);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: rng.int(1, 2) }, () =>
        validValue(rng, schema.items, field.replace(/\[\]$/, ''), known),
      );
    case 'integer':
    case 'number':
      return schema.default !== undefined && rng.chance(0.5)
        ? schema.default
        : rng.int(schema.minimum ?? 0, Math.min(schema.maximum ?? 100, (schema.minimum ?? 0) + 100));
    case 'boolean':
      return rng.chance(0.5);
    default:
      break;
  }
  const value = known(field);
  if (value !== undefined) return value;
  if (schema.examples !== undefined) return rng.pick(schema.examples);
  if (schema.default !== undefined) return schema.default;
  if (schema.format === 'date-time') return new Date(Date.now() + rng.int(-1e9, 1e9)).toISOString();
  if (schema.format === 'uuid') return rng.uuid();
  if (schema.pattern === '^[0-9a-f]{32}$') return rng.hex(32);
  if (schema.pattern === '^/') return `/${rng.hex(4)}`;
  return `fuzz-${rng.hex(6)}`;
}

/** A hostile value for any field: a nasty text, a value of another type, an odd number. */
export function hostileValue(rng: Prng): unknown {
  return rng.chance(0.6) ? randomText(rng) : randomJson(rng);
}

/** The value with one leaf (or the whole, or a new field) replaced by a hostile value. */
export function mutateOne(rng: Prng, value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object' || rng.chance(0.1)) return hostileValue(rng);
  if (Array.isArray(value)) {
    if (value.length === 0 || rng.chance(0.15)) return [...value, hostileValue(rng)];
    const at = rng.int(0, value.length - 1);
    return value.map((item, i) => (i === at ? mutateOne(rng, item, depth + 1) : item));
  }
  const entries = Object.entries(value);
  if (entries.length === 0 || rng.chance(0.1)) return { ...value, [randomText(rng).slice(0, 16)]: hostileValue(rng) };
  if (rng.chance(0.1)) return Object.fromEntries(entries.filter((_, i) => i !== rng.int(0, entries.length - 1)));
  const at = rng.int(0, entries.length - 1);
  return Object.fromEntries(entries.map(([k, v], i) => [k, i === at ? mutateOne(rng, v, depth + 1) : v]));
}

/** Lines of zone-file-like or name-list-like text, with odd lines mixed in. */
export function randomZoneText(rng: Prng): string {
  const lines: string[] = [];
  for (let i = rng.int(0, 12); i > 0; i -= 1) {
    lines.push(
      rng.pick([
        '$TTL 300',
        '$ORIGIN example.test.',
        '@ IN SOA ns1 hostmaster 1 7200 3600 1209600 300',
        'www IN A 192.0.2.10',
        `${randomText(rng)} IN A 192.0.2.1`,
        `www IN ${randomText(rng)} x`,
        'txt IN TXT "a\\000b"',
        '$INCLUDE /etc/passwd',
        `${rng.hex(8)}.example.test`,
        randomText(rng),
        '( unbalanced',
        'api.example.test',
      ]),
    );
  }
  return lines.join(rng.chance(0.1) ? '\r\n' : '\n');
}
