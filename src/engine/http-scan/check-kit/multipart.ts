/**
 * multipart/form-data bodies (RFC 7578) as a browser builds them for a form with file inputs,
 * and their parsing back (the injection points of a multipart request, fixtures' handlers).
 * Bodies are text: the files the scanner sends are short text files, never binary.
 */

/** One file part of a multipart body. */
export interface MultipartFile {
  /** The form field the file input is named by. */
  field: string;
  filename: string;
  contentType: string;
  content: string;
}

/** The boundary the scanner uses unless told otherwise: fixed so that a rebuilt body is the same text. */
export const defaultBoundary = '----PerimeterFormBoundary7MA4YWxkTrZu0gW';

/** The harmless file the scanner attaches to each file input of a form. */
export function harmlessFile(field: string): MultipartFile {
  return {
    field,
    filename: 'perimeter.txt',
    contentType: 'text/plain',
    content: 'perimeter scanner test file\r\n',
  };
}

/** A name or file name as a quoted-string of Content-Disposition: the HTML standard escapes `"`, CR and LF as %22, %0D, %0A. */
function quoted(value: string): string {
  return value.replace(/\r\n|\r|\n/g, '%0D%0A').replace(/"/g, '%22');
}

/** A field value with its line breaks normalised to CRLF, as the HTML standard's entry list does. */
function normaliseLineBreaks(value: string): string {
  return value.replace(/\r\n|\r|\n/g, '\r\n');
}

/**
 * A multipart/form-data body: the fields in order, then the files. Returns the Content-Type
 * header value (with its boundary) and the body text.
 */
export function multipartBody(
  fields: Array<[string, string]>,
  files: MultipartFile[],
  boundary: string = defaultBoundary,
): { contentType: string; text: string } {
  let text = '';
  for (const [name, value] of fields)
    text += `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${normaliseLineBreaks(value)}\r\n`;
  for (const file of files)
    text +=
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.filename)}"\r\n` +
      `Content-Type: ${file.contentType}\r\n\r\n${file.content}\r\n`;
  text += `--${boundary}--\r\n`;
  return { contentType: `multipart/form-data; boundary=${boundary}`, text };
}

/** The boundary parameter of a multipart/form-data Content-Type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^\s*multipart\/form-data\s*(?:;|$)/i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  return boundary === undefined || boundary === '' ? undefined : boundary;
}

/** A parameter of a Content-Disposition header (`name`, `filename`), quoted or not. */
function dispositionParameter(header: string, parameter: string): string | undefined {
  const match = new RegExp(`;\\s*${parameter}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(header);
  const value = match?.[1] ?? match?.[2];
  return value?.replace(/%22/g, '"').replace(/%0D%0A/g, '\r\n');
}

/**
 * The fields and files of a multipart/form-data body, in order, or undefined when the content
 * type is not multipart/form-data with a boundary or the body is not made of its parts. A part
 * with a `filename` is a file (its Content-Type defaults to text/plain).
 */
export function parseMultipart(
  text: string,
  contentType: string,
): { fields: Array<[string, string]>; files: MultipartFile[] } | undefined {
  const boundary = multipartBoundary(contentType);
  if (boundary === undefined) return undefined;
  const delimiter = `--${boundary}`;
  const chunks = text.split(delimiter);
  // The preamble before the first delimiter, then parts; the last delimiter is followed by `--`.
  if (chunks.length < 2) return undefined;
  const fields: Array<[string, string]> = [];
  const files: MultipartFile[] = [];
  let isClosed = false;
  for (const chunk of chunks.slice(1)) {
    if (chunk.startsWith('--')) {
      isClosed = true;
      break;
    }
    const part = chunk.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
    const headerEnd = /\r?\n\r?\n/.exec(part);
    if (headerEnd === null) return undefined;
    const headerText = part.slice(0, headerEnd.index);
    const content = part.slice(headerEnd.index + headerEnd[0].length);
    const headers = new Map<string, string>();
    for (const line of headerText.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition');
    if (disposition === undefined || !/^\s*form-data\b/i.test(disposition)) return undefined;
    const name = dispositionParameter(disposition, 'name');
    if (name === undefined) return undefined;
    const filename = dispositionParameter(disposition, 'filename');
    if (filename === undefined) fields.push([name, content]);
    else files.push({ field: name, filename, contentType: headers.get('content-type') ?? 'text/plain', content });
  }
  return isClosed ? { fields, files } : undefined;
}
