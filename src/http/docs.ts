import MarkdownIt from 'markdown-it';
import { errorCatalogue, type ErrorCode } from '../core/errors/error-catalogue.ts';
import { httpStatusOf } from './error-status.ts';

// CommonMark without raw HTML: a description is text we wrote, but markup in it is escaped all the same.
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** A description of the OpenAPI documents (CommonMark) as HTML. */
function renderMarkdown(text: string): string {
  return markdown.render(text);
}

/** The same for a one-line text inside a table cell: no wrapping paragraph. */
function renderMarkdownInline(text: string): string {
  return markdown.renderInline(text);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface Operation {
  summary?: string;
  description?: string;
  parameters?: Array<{ name: string; in: string; required: boolean; description?: string }>;
  responses?: Record<string, { description?: string }>;
  'x-perimeter-extension'?: boolean;
  'x-experimental'?: boolean;
}

function renderSurface(doc: Record<string, unknown>, base: string): string {
  const paths = doc['paths'] as Record<string, Record<string, Operation>>;
  const rows: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<code>${escape(p.name)}</code> (${p.in}${p.required ? ', required' : ''})${p.description ? `: ${renderMarkdownInline(p.description)}` : ''}`,
        )
        .join('<br>');
      const errors = Object.entries(op.responses ?? {})
        .filter(([s]) => Number(s) >= 400)
        .map(([s, r]) => `<b>${s}</b> ${renderMarkdownInline(r.description ?? '')}`)
        .join('<br>');
      const flags = `${op['x-perimeter-extension'] ? ' <em>(extension)</em>' : ''}${op['x-experimental'] ? ' <em>(experimental)</em>' : ''}`;
      rows.push(
        `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escape(base + path)}</code></td>` +
          `<td><b>${escape(op.summary ?? '')}</b>${flags}${renderMarkdown(op.description ?? '')}${params ? `<small>${params}</small>` : ''}</td><td><small>${errors}</small></td></tr>`,
      );
    }
  }
  return `<table><tr><th>Method</th><th>Path</th><th>Operation</th><th>Errors</th></tr>${rows.join('\n')}</table>`;
}

/** The /docs page: every operation of both surfaces and the error catalogue, from the OpenAPI documents. */
export function renderDocsPage(v2: Record<string, unknown>, v3: Record<string, unknown>): string {
  const codes = (Object.keys(errorCatalogue) as unknown as ErrorCode[])
    .map(
      (code) =>
        `<tr id="error-${code}"><td>${code}</td><td>${httpStatusOf[code]}</td><td>${escape(errorCatalogue[code])}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perimeter API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:80rem}table{border-collapse:collapse;width:100%;margin-bottom:2rem}td,th{border:1px solid #ccc;padding:.4rem;vertical-align:top;text-align:left}code{font-size:.9em}</style>
</head><body>
<h1>perimeter API</h1>
<p>Machine-readable documents: <a href="/rest/v2/openapi.json">/rest/v2/openapi.json</a> and <a href="/rest/v3/openapi.json">/rest/v3/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Version 2</h2>${renderMarkdown(String((v2['info'] as { description: string }).description))}
${renderSurface(v2, '/rest/v2')}
<h2>Version 3</h2>${renderMarkdown(String((v3['info'] as { description: string }).description))}
${renderSurface(v3, '/rest/v3')}
<h2>Error codes (v2)</h2>
<table><tr><th>Code</th><th>HTTP</th><th>Meaning</th></tr>
${codes}
</table>
</body></html>`;
}
