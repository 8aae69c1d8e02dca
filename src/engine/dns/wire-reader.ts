import { escapeLabel } from './dns-name.ts';

/** A DNS message (or record data) that does not decode: truncated, a bad pointer, a bad length. */
export class DnsWireError extends Error {
  override readonly name = 'DnsWireError';
}

const MAX_NAME_WIRE = 255;

/**
 * Bounds-checked reading of DNS wire data. Names are decoded to the canonical presentation form
 * (see dns-name.ts), following compression pointers (RFC 1035 §4.1.4) only backwards, so a
 * pointer loop cannot hang the decoder. Decoded names are cached by offset for the message: in
 * a zone transfer most owners point at the same few suffixes, and each is escaped once.
 */
export class WireReader {
  pos: number;
  private names: Map<number, string> | undefined;
  // The name declared by remember() (the question), outside the map: most answers need no map.
  private rememberedAt = -1;
  private remembered = '';

  constructor(
    readonly buf: Buffer,
    start = 0,
    /** Record data given on its own (RFC 3597 `\#` text) must not contain compression pointers. */
    private readonly isPointerAllowed = true,
  ) {
    this.pos = start;
  }

  /** Fails unless `count` more bytes are there. */
  need(count: number): void {
    if (this.pos + count > this.buf.length) throw new DnsWireError('message truncated');
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }

  u16(): number {
    this.need(2);
    const value = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return value;
  }

  u32(): number {
    this.need(4);
    const value = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return value;
  }

  /** The next `count` bytes as a latin1 string. */
  bytes(count: number): string {
    this.need(count);
    const value = this.buf.toString('latin1', this.pos, this.pos + count);
    this.pos += count;
    return value;
  }

  /** A length-prefixed character string, as latin1 bytes. */
  characterString(): string {
    return this.bytes(this.u8());
  }

  /** Declares the canonical name found at an offset (a question the caller built), so pointers to it need no decoding. */
  remember(offset: number, name: string): void {
    if (this.rememberedAt === -1 || this.rememberedAt === offset) {
      this.rememberedAt = offset;
      this.remembered = name;
    } else {
      (this.names ??= new Map()).set(offset, name);
    }
  }

  /** The name decoded or declared at an offset, if any. */
  private known(offset: number): string | undefined {
    return offset === this.rememberedAt ? this.remembered : this.names?.get(offset);
  }

  /** The next name, canonical (absolute, lower-case, trailing dot). */
  name(): string {
    const buf = this.buf;
    // The common owner of an answer: a pointer to a name already decoded (the question's).
    if (this.pos + 1 < buf.length && ((buf[this.pos] as number) & 0xc0) === 0xc0 && this.isPointerAllowed) {
      const target = (((buf[this.pos] as number) & 0x3f) << 8) | (buf[this.pos + 1] as number);
      const known = target < this.pos ? this.known(target) : undefined;
      if (known !== undefined) {
        this.pos += 2;
        return known;
      }
    }
    let pos = this.pos;
    let segmentStart = pos;
    let end = -1;
    let wire = 1;
    const starts: number[] = [];
    const labels: string[] = [];
    let suffix = '.';
    for (;;) {
      if (pos >= buf.length) throw new DnsWireError('name runs past the end of the message');
      const length = buf[pos] as number;
      if (length === 0) {
        if (end === -1) end = pos + 1;
        break;
      }
      if ((length & 0xc0) === 0xc0) {
        if (!this.isPointerAllowed) throw new DnsWireError('compression pointer in record data given as text');
        if (pos + 1 >= buf.length) throw new DnsWireError('name runs past the end of the message');
        if (end === -1) end = pos + 2;
        const target = ((length & 0x3f) << 8) | (buf[pos + 1] as number);
        // Only strictly backwards: every jump lands before the last one, so decoding ends.
        if (target >= segmentStart) throw new DnsWireError('compression pointer does not point backwards');
        const known = this.known(target);
        if (known !== undefined) {
          suffix = known;
          wire += wireLengthOfCached(known);
          break;
        }
        pos = target;
        segmentStart = target;
        continue;
      }
      if ((length & 0xc0) !== 0) throw new DnsWireError(`unsupported label type 0x${length.toString(16)}`);
      if (pos + 1 + length > buf.length) throw new DnsWireError('name runs past the end of the message');
      starts.push(pos);
      labels.push(escapeLabel(buf.toString('latin1', pos + 1, pos + 1 + length)));
      wire += length + 1;
      pos += length + 1;
    }
    if (wire > MAX_NAME_WIRE) throw new DnsWireError('name longer than 255 bytes');
    this.pos = end;
    if (labels.length === 0) return suffix;
    // One flat string (join copies once), the suffixes slices of it: concatenating label by
    // label would leave rope strings that every later hash or comparison has to flatten.
    labels.push(suffix === '.' ? '' : suffix);
    const name = labels.join('.');
    const names = (this.names ??= new Map());
    let at = 0;
    for (let i = 0; i < starts.length; i += 1) {
      names.set(starts[i] as number, at === 0 ? name : name.slice(at));
      at += (labels[i] as string).length + 1;
    }
    return name;
  }
}

// Wire length of a cached canonical name, for the 255-byte check; counted once per decoded name.
function wireLengthOfCached(name: string): number {
  if (name === '.') return 0;
  let length = 0;
  for (let i = 0; i < name.length; i += 1) {
    if (name.charCodeAt(i) === 0x5c) {
      const next = name.charCodeAt(i + 1);
      i += next >= 0x30 && next <= 0x39 ? 3 : 1;
    }
    length += 1;
  }
  return length;
}
