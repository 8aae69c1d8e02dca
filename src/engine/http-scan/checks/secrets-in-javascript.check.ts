import { isScriptPage, withMaskedBody } from './exposure-probe.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the secrets-in-JavaScript check. */
export const secretsInJavaScriptCheckId = 'secrets-in-javascript';

const BASE = {
  checkId: secretsInJavaScriptCheckId,
  cwe: 798,
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    'JavaScript served to every visitor contains a credential in a known format (cloud, payment, source-hosting or chat API keys, or a private key).',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/05-Review_Web_Page_Content_for_Information_Leakage',
      name: 'OWASP WSTG: Review web page content for information leakage',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Secrets_Management_Cheat_Sheet.html',
      name: 'OWASP Secrets Management Cheat Sheet',
    },
  ],
};

const SECRET_KIND: FindingKind = {
  ...BASE,
  title: 'Secret credential in JavaScript',
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  severity: 'high',
  risk: 'Anyone who loads the page can copy the credential and act as the application against the provider: read or change cloud data, issue payments, push code or read chat history.',
  remediation:
    'Revoke and rotate the credential now, then keep it on the server: the browser should call your back end, which calls the provider. Scan builds for secrets before they ship.',
};

// Browser keys of Google APIs are meant to be public, restricted by referrer and API: a lesser finding.
const BROWSER_KEY_KIND: FindingKind = {
  ...BASE,
  title: 'Google API key in JavaScript',
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'medium',
  risk: "An unrestricted key can be used by anyone for any enabled Google API, at the owner's cost and under the owner's quota.",
  remediation:
    "Restrict the key to the site's HTTP referrers and to the APIs it needs in the Google Cloud console, or rotate it and move the calls to the server.",
};

interface SecretFormat {
  label: string;
  pattern: RegExp;
  /** Characters of the match kept readable when masked at the start (the format's prefix). */
  shown: number;
  isBrowserKey?: boolean;
  /** Tokens: placeholders (EXAMPLE, xxxxxxxx) do not count. Private keys are base64 and may repeat. */
  isToken: boolean;
}

const FORMATS: SecretFormat[] = [
  { label: 'AWS access key ID', pattern: /(?<![0-9A-Za-z])AKIA[0-9A-Z]{16}(?![0-9A-Za-z])/g, shown: 4, isToken: true },
  {
    label: 'Google API key',
    pattern: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g,
    shown: 4,
    isBrowserKey: true,
    isToken: true,
  },
  {
    label: 'Stripe live secret key',
    pattern: /(?<![0-9A-Za-z_])[sr]k_live_[0-9A-Za-z]{24,99}(?![0-9A-Za-z])/g,
    shown: 8,
    isToken: true,
  },
  {
    label: 'GitHub token',
    pattern:
      /(?<![0-9A-Za-z_])(?:gh[pousr]_[0-9A-Za-z]{36}|github_pat_[0-9A-Za-z]{22}_[0-9A-Za-z]{59})(?![0-9A-Za-z_])/g,
    shown: 4,
    isToken: true,
  },
  { label: 'Slack token', pattern: /(?<![\w-])xox[baprs]-\d{8,}-[0-9A-Za-z-]{8,}/g, shown: 5, isToken: true },
  {
    label: 'private key',
    // The header alone is not a key (PEM libraries carry it as a constant): a base64 body must follow.
    pattern:
      /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----(?:\s|\\[rn])*(?:[A-Za-z0-9+/=]|\s|\\[rn]){64,}/g,
    shown: 0,
    isToken: false,
  },
];

const PLACEHOLDER = /EXAMPLE|example|(?:XXXX|xxxx|\*\*\*\*)|([0-9A-Za-z])\1{5,}/;

/** One secret in a text: its format, its offset and length, and the masked form. */
export interface FoundSecret {
  label: string;
  value: string;
  offset: number;
  masked: string;
  isBrowserKey: boolean;
}

/** Masks a secret: the format's prefix and last 4 characters stay (tokens); a key keeps its header. */
function maskSecret(value: string, format: SecretFormat): string {
  if (!format.isToken) {
    const header = value.indexOf('-----', 5) + 5;
    // Escaped line breaks (`\\n` in a string literal) stay, so the masked key keeps its shape.
    return (
      value.slice(0, header) + value.slice(header).replace(/\\[rn]|[A-Za-z0-9+/=]/g, (c) => (c.length === 2 ? c : '*'))
    );
  }
  return value.slice(0, format.shown) + '*'.repeat(Math.max(0, value.length - format.shown - 4)) + value.slice(-4);
}

/**
 * The credentials of known formats in a piece of code: AWS access key IDs (AKIA…), Google API
 * keys (AIza…), Stripe live secret keys (sk_live_/rk_live_; publishable pk_live_ keys are public),
 * GitHub tokens (ghp_ and kin, github_pat_), Slack tokens (xox[baprs]-) and PEM private keys
 * with a body. Placeholders (…EXAMPLE, xxxx, long runs of one character) are skipped.
 */
export function findSecrets(code: string): FoundSecret[] {
  const found: FoundSecret[] = [];
  for (const format of FORMATS) {
    for (const match of code.matchAll(format.pattern)) {
      const value = match[0];
      if (format.isToken && PLACEHOLDER.test(value.slice(format.shown))) continue;
      found.push({
        label: format.label,
        value,
        offset: match.index,
        masked: maskSecret(value, format),
        isBrowserKey: format.isBrowserKey === true,
      });
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/** The script texts of a page with their offsets in its body: the script itself, or an HTML page's inline scripts. */
function scriptsOf(page: CrawledPage): Array<{ code: string; offset: number }> {
  if (isScriptPage(page)) return [{ code: page.exchange.body, offset: 0 }];
  if (page.links === undefined) return [];
  let from = 0;
  const scripts: Array<{ code: string; offset: number }> = [];
  for (const code of page.links.scripts) {
    const offset = page.exchange.body.indexOf(code, from);
    if (offset < 0) continue; // entities decoded by the parser: not where the text stands
    scripts.push({ code, offset });
    from = offset + code.length;
  }
  return scripts;
}

/**
 * Secrets in JavaScript (passive: no request): external scripts and the inline scripts of HTML
 * pages. A secret is reported once per origin, at the first path that served it (a key in the
 * layout of every page is one finding); the secrets a file brings are one finding at its path.
 * The recorded response and the observation show the secrets masked.
 */
export function createSecretsInJavaScriptCheck(): PageCheck {
  const reported = new Set<string>();
  return {
    id: secretsInJavaScriptCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const secrets: FoundSecret[] = [];
      for (const script of scriptsOf(page)) {
        for (const secret of findSecrets(script.code)) {
          const key = `${page.originText} ${secret.value}`;
          if (reported.has(key)) continue;
          reported.add(key);
          secrets.push({ ...secret, offset: script.offset + secret.offset });
        }
      }
      const first = secrets[0];
      if (first === undefined) return;
      const exchange = withMaskedBody(
        page.exchange,
        secrets.map((s) => ({ offset: s.offset, length: s.value.length, replacement: s.masked })),
      );
      const kind = secrets.every((s) => s.isBrowserKey) ? BROWSER_KEY_KIND : SECRET_KIND;
      const labels = [...new Set(secrets.map((s) => s.label))];
      await context.report(
        buildFinding(kind, {
          location: `${page.originText}${page.url.pathname}`,
          host: page.origin.host,
          exchange,
          evidence: { value: first.masked.slice(0, 120), offset: first.offset },
          title: `${kind.title}: ${labels.join(', ')}`,
          observation: `${page.url.href} serves ${secrets.length === 1 ? 'a credential' : `${secrets.length} credentials`}: ${secrets.map((s) => `${s.label} ${s.masked.length > 80 ? `${s.masked.slice(0, 80)}…` : s.masked}`).join('; ')} (masked here and in the recorded response).`,
        }),
      );
    },
  };
}
