import { randomBytes, randomInt } from 'node:crypto';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { extractPageLinks, formActionUrl, type FormLink } from '../check-kit/html-links.ts';
import { multipartBody, type MultipartFile } from '../check-kit/multipart.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';
import { sendCheckRequest } from './check-request.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';

/** Stable id of the unrestricted file upload check. */
export const fileUploadCheckId = 'file-upload';

const BASE = {
  checkId: fileUploadCheckId,
  cwe: 434,
  owasp: 'A04:2021-Insecure Design',
  references: [
    {
      link: 'https://owasp.org/www-community/vulnerabilities/Unrestricted_File_Upload',
      name: 'OWASP: Unrestricted file upload',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/File_Upload_Cheat_Sheet.html',
      name: 'OWASP File Upload Cheat Sheet',
    },
  ],
  remediation:
    'Accept only the file types the feature needs, by an allow-list of extensions checked on the server together with the content (not the Content-Type the client sends); store uploads outside the web root under names the server chooses; serve them through a handler with `Content-Disposition: attachment`, a fixed safe Content-Type and `X-Content-Type-Options: nosniff`, or from a separate domain; never let the upload folder run scripts.',
};

const EXECUTED: FindingKind = {
  ...BASE,
  title: 'Unrestricted file upload: an uploaded script runs',
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  cvss2Vector: 'AV:N/AC:L/Au:N/C:C/I:C/A:C',
  severity: 'critical',
  description:
    'A file upload form accepts a PHP script, stores it where the web server runs it, and the script ran when its URL was fetched: the product it prints was computed by the server.',
  risk: 'Anyone who can use the form runs code of their choice on the server: a web shell, the database and every secret of the application, a foothold in the network.',
};

const SERVED: FindingKind = {
  ...BASE,
  title: 'Unrestricted file upload: an uploaded file is served back as active content',
  // A victim has to open the file's URL; its script then runs in the site's origin (S:C).
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:C/C:H/I:L/A:N',
  cvss2Vector: 'AV:N/AC:M/Au:N/C:P/I:P/A:N',
  severity: 'high',
  description:
    'A file upload form accepts a script or HTML file of any type and the site serves it back under its dangerous extension, inline and without nosniff: the uploaded content is delivered as the site’s own.',
  risk: "An uploaded HTML or SVG file runs script in the site's origin for whoever opens its link (stored cross-site scripting: session theft, actions in the victim's name); a PHP file served raw is one configuration change away from running on the server.",
};

/** Upload candidates per form at most (each is one POST and a few GETs). */
const maxVariantsPerForm = 3;
/** Places an uploaded file is looked for at most per upload. */
const maxPlacesPerUpload = 8;
/** Forms tested per origin at most. */
export const maxUploadFormsPerOrigin = 10;

/** One file the check uploads and how it recognises it when fetched back. */
export interface UploadProbe {
  file: Omit<MultipartFile, 'field'>;
  /** The plain marker in the file (its name without extension). */
  marker: string;
  /** The text a server that ran the PHP would print instead of the code; undefined for non-scripts. */
  product: string | undefined;
}

/** The files tried, in order: a PHP script with its own type, the same with an image type (a client-side type check), an HTML page. */
export function uploadProbes(): UploadProbe[] {
  const probes: UploadProbe[] = [];
  for (const contentType of ['application/x-php', 'image/png']) {
    const marker = `perimeter-${randomBytes(6).toString('hex')}`;
    const a = randomInt(1000, 9999);
    const b = randomInt(1000, 9999);
    probes.push({
      file: { filename: `${marker}.php`, contentType, content: `${marker} <?php echo ${a}*${b}; ?>\n` },
      marker,
      product: `${marker} ${a * b}`,
    });
  }
  const marker = `perimeter-${randomBytes(6).toString('hex')}`;
  probes.push({
    file: { filename: `${marker}.html`, contentType: 'text/html', content: `<!doctype html><p>${marker}</p>\n` },
    marker,
    product: undefined,
  });
  return probes.slice(0, maxVariantsPerForm);
}

/**
 * How a fetched file shows: `executed` (the product printed and no PHP code left), `served`
 * (the raw content, inline, as a type a browser renders or without nosniff), or undefined (not
 * there, or inert: an attachment, or a safe type with nosniff).
 */
export function judgeServedFile(exchange: HttpExchange, probe: UploadProbe): 'executed' | 'served' | undefined {
  if (exchange.status !== 200) return undefined;
  if (probe.product !== undefined && exchange.body.includes(probe.product) && !exchange.body.includes('<?php'))
    return 'executed';
  if (!exchange.body.includes(probe.file.content.trim())) return undefined;
  if (/^\s*attachment\b/i.test(headerValue(exchange, 'content-disposition') ?? '')) return undefined;
  const type = (headerValue(exchange, 'content-type') ?? '').toLowerCase();
  const isNosniff = /nosniff/i.test(headerValue(exchange, 'x-content-type-options') ?? '');
  const isActiveType = type === '' || /html|xml|svg|javascript|x-php|x-httpd/.test(type);
  return isActiveType || !isNosniff ? 'served' : undefined;
}

/** Where the answer to an upload says the file is: references that end with its name, resolved against the action. */
export function placesInAnswer(body: string, filename: string, base: URL): URL[] {
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const places: URL[] = [];
  for (const match of body.matchAll(new RegExp(`[^\\s"'<>()=,;]*${escaped}`, 'g'))) {
    try {
      const url = new URL(match[0], base);
      url.hash = '';
      if (!places.some((p) => p.href === url.href)) places.push(url);
    } catch {
      // Not a reference.
    }
  }
  return places;
}

/** The usual upload folders next to the action and the page, and at the root. */
function usualPlaces(filename: string, action: URL, page: URL): URL[] {
  const folders = ['uploads/', 'upload/', 'files/', 'media/'];
  const bases = [...new Set([new URL('./', action).href, new URL('./', page).href, new URL('/', action).href])];
  const urls: URL[] = [];
  for (const base of bases) for (const folder of ['', ...folders]) urls.push(new URL(`${folder}${filename}`, base));
  return urls;
}

/** The request of a form with one file input given `file`: the other fields as crawled, the first submit button clicked. */
function uploadRequest(
  form: FormLink,
  page: URL,
  fileField: string,
  file: Omit<MultipartFile, 'field'>,
): { url: URL; body: { contentType: string; text: string } } | undefined {
  const button = form.buttons[0];
  const url = formActionUrl(form, button, page);
  if (url === undefined) return undefined;
  const others = form.fileFields
    .filter((f) => f.name !== fileField)
    .map((f) => ({
      field: f.name,
      filename: 'perimeter.txt',
      contentType: 'text/plain',
      content: 'perimeter scanner test file\r\n',
    }));
  const body = multipartBody([...form.fields, ...(button?.fields ?? [])], [{ field: fileField, ...file }, ...others]);
  return { url, body };
}

/** Uploads one probe and looks for it; true when the form's test is over (a finding, or no usable request). */
async function tryProbe(
  page: CrawledPage,
  form: FormLink,
  fileField: string,
  probe: UploadProbe,
  context: CheckContext,
): Promise<boolean> {
  const request = uploadRequest(form, page.url, fileField, probe.file);
  if (request === undefined) return true;
  const answer = await sendCheckRequest(request.url, context, { method: 'POST', body: request.body });
  if (answer === undefined || answer.status >= 400) return false;
  let places = placesInAnswer(answer.body, probe.file.filename, request.url);
  const location = answer.status >= 300 ? headerValue(answer, 'location') : undefined;
  if (location !== undefined && places.length === 0) {
    const next = URL.canParse(location, request.url) ? new URL(location, request.url) : undefined;
    const followed = next === undefined ? undefined : await sendCheckRequest(next, context);
    if (followed !== undefined) places = placesInAnswer(followed.body, probe.file.filename, followed.request.url);
  }
  if (places.length === 0) places = usualPlaces(probe.file.filename, request.url, page.url);
  const seen = new Set<string>();
  for (const place of places) {
    if (seen.size >= maxPlacesPerUpload || seen.has(place.href) || place.origin !== page.url.origin) continue;
    seen.add(place.href);
    const fetched = await sendCheckRequest(place, context);
    if (fetched === undefined) continue;
    const verdict = judgeServedFile(fetched, probe);
    if (verdict === undefined) continue;
    const kind = verdict === 'executed' ? EXECUTED : SERVED;
    const evidenceText = verdict === 'executed' ? probe.product! : probe.marker;
    const offset = fetched.body.indexOf(evidenceText);
    await context.report(
      buildFinding(kind, {
        location: `${page.originText}${request.url.pathname}`,
        host: page.origin.host,
        exchange: fetched,
        ...(offset < 0 ? {} : { evidence: { value: evidenceText, offset } }),
        observation:
          verdict === 'executed'
            ? `Confirmed by execution: ${probe.file.filename} (sent as ${probe.file.contentType}, holding ${JSON.stringify(probe.file.content.trim())}) was uploaded through field ${fileField} of the form at ${page.url.pathname} and fetched at ${place.pathname}, which answered ${JSON.stringify(probe.product)}: the server ran the PHP code.`
            : `Confirmed by fetching it back: ${probe.file.filename} (sent as ${probe.file.contentType}) was uploaded through field ${fileField} of the form at ${page.url.pathname} and ${place.pathname} serves its content as it was sent, inline, as ${headerValue(fetched, 'content-type') ?? 'no declared type'}${/nosniff/i.test(headerValue(fetched, 'x-content-type-options') ?? '') ? '' : ' without nosniff'}.`,
      }),
    );
    return true;
  }
  return false;
}

/**
 * Unrestricted file upload. Each POST form with a file input (once per origin, action and file
 * field names; at most maxUploadFormsPerOrigin per origin) is sent, as multipart with its other
 * fields as crawled and its first submit button, a harmless file that prints a unique marker:
 * `perimeter-<hex>.php` holding `<?php echo A*B; ?>` (first with a PHP type, then with an
 * image type), then `perimeter-<hex>.html`. The file is looked for where the answer says
 * (references ending with its name, a redirect's page included), else in the usual folders
 * next to the action and the page; fetched back, the computed product (no PHP code left) is a
 * critical finding, the raw content served inline (not an attachment, not a safe type with
 * nosniff) a high one. The first finding ends the form's test.
 */
export function createFileUploadCheck(): PageCheck {
  const tested = new Set<string>();
  const perOrigin = new Map<string, number>();

  return {
    id: fileUploadCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (page.links === undefined || page.exchange.request.method !== 'GET') return;
      for (const crawled of page.links.forms) {
        if (crawled.method !== 'post' || crawled.fileFields.length === 0) continue;
        let action: URL;
        try {
          action = new URL(crawled.action === '' ? page.url.href : crawled.action, page.url);
        } catch {
          continue;
        }
        const key = `${page.originText} ${action.pathname} ${crawled.fileFields.map((f) => f.name).join('&')}`;
        const count = perOrigin.get(page.originText) ?? 0;
        if (tested.has(key) || count >= maxUploadFormsPerOrigin || action.origin !== page.url.origin) continue;
        tested.add(key);
        perOrigin.set(page.originText, count + 1);
        // The form as the page serves it now: hidden values (an anti-CSRF token) are fresh.
        const again = await sendCheckRequest(page.url, context);
        const fresh =
          again === undefined || again.status !== 200
            ? undefined
            : extractPageLinks(again.body).forms.find(
                (f) =>
                  f.action === crawled.action &&
                  f.fileFields.map((x) => x.name).join('&') === crawled.fileFields.map((x) => x.name).join('&'),
              );
        const form = fresh ?? crawled;
        const fileField = form.fileFields[0]!.name;
        for (const probe of uploadProbes()) if (await tryProbe(page, form, fileField, probe, context)) break;
      }
    },
  };
}
