import type { SessionContext } from '../../core/accounts/session.service.ts';
import { html, type Html } from './html.ts';
import { staticUrl, type StaticName } from './static-files.ts';

/** The sections of the console a page belongs to (the navigation marks the current one). */
export type Section = 'overview' | 'findings' | 'assets' | 'scans' | 'surface' | 'zones' | 'team' | 'account' | 'none';

/** What frames a page: its title, the signed-in member (absent before sign-in) and its CSRF token. */
export interface PageFrame {
  title: string;
  signedIn?: SessionContext;
  section?: Section;
  /** A notice shown at the top (after a redirect: "3 findings marked fixed"). */
  notice?: string;
  /** Static files of this page only, after the console's own: stylesheets (.css) and scripts (.js, run deferred in this order). */
  assets?: StaticName[];
}

const sections: Array<{ id: Section; href: string; label: string }> = [
  { id: 'overview', href: '/overview', label: 'Overview' },
  { id: 'findings', href: '/vulnerabilities', label: 'Findings' },
  { id: 'assets', href: '/assets', label: 'Assets' },
  { id: 'scans', href: '/scans', label: 'Scans' },
  { id: 'surface', href: '/surface', label: 'Surface' },
  { id: 'zones', href: '/zones', label: 'Zones' },
  { id: 'team', href: '/team', label: 'Team' },
];

/** The hidden field every state-changing form of a signed-in page carries. */
export function csrfField(signedIn: SessionContext): Html {
  return html`<input type="hidden" name="_csrf" value="${signedIn.session.csrfToken}">`;
}

function header(frame: PageFrame): Html {
  const signedIn = frame.signedIn;
  if (signedIn === undefined) return html`<header class="top"><a class="brand" href="/">perimeter</a></header>`;
  const { member, team } = signedIn;
  const nav = sections.map(
    (s) => html`<li><a href="${s.href}"${s.id === frame.section ? html` aria-current="page"` : ''}>${s.label}</a></li>`,
  );
  return html`<header class="top">
  <a class="brand" href="/">perimeter</a>
  <nav aria-label="Sections"><ul>${nav}</ul></nav>
  <div class="who">
    <span class="team" title="Team">${team.name}</span>
    <a href="/account"${frame.section === 'account' ? html` aria-current="page"` : ''}>${member.email}</a>
    <span class="role">${member.role}</span>
    <form method="post" action="/signout">${csrfField(signedIn)}<button type="submit" class="link">Sign out</button></form>
  </div>
</header>`;
}

/**
 * A page's own static files: stylesheets, then scripts. A `.iife.js` file is a library bundle
 * that defines a global (a classic script, deferred); any other script is a module. Deferred
 * scripts and modules run in document order once the page is parsed: a library before the
 * module that uses it.
 */
function pageAssets(names: StaticName[]): Html {
  const styles = names.filter((n) => n.endsWith('.css'));
  const scripts = names.filter((n) => n.endsWith('.js'));
  return html`${styles.map((n) => html`<link rel="stylesheet" href="${staticUrl(n)}">`)}${scripts.map((n) =>
    n.endsWith('.iife.js')
      ? html`<script defer src="${staticUrl(n)}"></script>`
      : html`<script type="module" src="${staticUrl(n)}"></script>`,
  )}`;
}

/** A whole HTML page: head (the console's CSS and JS, nothing from another host), header, main. */
export function page(frame: PageFrame, main: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${frame.title} · perimeter</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${staticUrl('console.css')}">
<script type="module" src="${staticUrl('console.js')}"></script>
${pageAssets(frame.assets ?? [])}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(frame)}
<main id="main" tabindex="-1">
${frame.notice === undefined ? '' : html`<p class="notice" role="status">${frame.notice}</p>`}
${main}
</main>
</body>
</html>`;
}
