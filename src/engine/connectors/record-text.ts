/**
 * DNS presentation form shared by the connector adapters: names and RDATA as a zone file writes
 * them, so records read from any provider compare equal. Owner names are lower case without the
 * final dot (the inventory's form); names inside RDATA are absolute with it; character-strings
 * are quoted and escaped.
 */

/** A domain name as a zone file writes a target: lower case, absolute, with the final dot (the root stays `.`). */
export function absoluteName(name: string): string {
  const trimmed = name.trim().toLowerCase();
  return trimmed.endsWith('.') ? trimmed : `${trimmed}.`;
}

/** An owner name as the inventory keeps it: lower case, without the final dot. */
export function ownerName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** One character-string: quoted, with quotes and backslashes escaped. */
export function quotedString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * TXT data as quoted character-strings of at most 255 characters each, as zone files write them;
 * data that is already quoted (some providers store TXT so) is kept as it is.
 */
export function quotedText(text: string): string {
  if (/^".*"$/s.test(text.trim())) return text.trim();
  const parts: string[] = [];
  for (let at = 0; at === 0 || at < text.length; at += 255) parts.push(text.slice(at, at + 255));
  return parts.map(quotedString).join(' ');
}

/** Types whose answer is a single domain name. */
const targetTypes = new Set(['CNAME', 'NS', 'PTR', 'DNAME']);
/** Types whose RDATA providers give in presentation form already (apart from targets and quoting). */
const plainTypes = new Set([
  'A',
  'AAAA',
  'SOA',
  'DS',
  'SSHFP',
  'TLSA',
  'NAPTR',
  'HINFO',
  'CERT',
  'SVCB',
  'HTTPS',
  'SMIMEA',
]);

/**
 * RDATA as a provider gives it in text (NS1's short answers, OCI's rdata) in zone-file
 * presentation form: targets absolute with their final dot, TXT and CAA values quoted. Undefined
 * for a type that cannot be rendered (a provider's own pseudo-types such as ALIAS).
 */
export function presentationData(type: string, answer: string): string | undefined {
  const words = answer.trim().split(/\s+/);
  if (targetTypes.has(type)) return absoluteName(answer);
  if (type === 'MX' && words.length === 2) return `${words[0]} ${absoluteName(words[1] ?? '')}`;
  if (type === 'SRV' && words.length === 4) return `${words.slice(0, 3).join(' ')} ${absoluteName(words[3] ?? '')}`;
  if (type === 'TXT' || type === 'SPF') return quotedText(answer);
  if (type === 'CAA' && words.length >= 3) return `${words[0]} ${words[1]} ${quotedText(words.slice(2).join(' '))}`;
  if (plainTypes.has(type)) return answer.trim();
  return undefined;
}
