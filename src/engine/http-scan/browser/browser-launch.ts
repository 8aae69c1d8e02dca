import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** The environment variable naming the browser the scans render pages with. */
export const browserPathVariable = 'PERIMETER_SCAN_BROWSER';

/** Where Debian's chromium package puts the browser. */
export const defaultBrowserPath = '/usr/bin/chromium';

/** Names of a Chromium-family browser looked for on PATH when the default path has none. */
const browserNames = ['chromium', 'chromium-browser', 'google-chrome'];

/** Time allowed for the browser to start. */
const launchTimeoutMs = 20_000;

/** True when `path` is an executable file. */
function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser executable of the scans: `configured` (the engine's option) or PERIMETER_SCAN_BROWSER
 * when set (taken as is: a missing file is the caller's warning, never a silent fall-back), else
 * /usr/bin/chromium, else the first of chromium, chromium-browser, google-chrome on PATH;
 * undefined when none exists.
 */
export function findBrowser(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { path: string | undefined; tried: string } {
  const explicit = configured ?? (env[browserPathVariable] === '' ? undefined : env[browserPathVariable]);
  if (explicit !== undefined) return { path: isExecutable(explicit) ? explicit : undefined, tried: explicit };
  if (isExecutable(defaultBrowserPath)) return { path: defaultBrowserPath, tried: defaultBrowserPath };
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const name of browserNames)
    for (const dir of dirs) if (isExecutable(join(dir, name))) return { path: join(dir, name), tried: name };
  return { path: undefined, tried: `${defaultBrowserPath} or ${browserNames.join(', ')} on PATH` };
}

/**
 * Chromium's flags of a confined scan browser. Every request of a page is routed through the
 * scan's guarded client (PageRenderer); these flags make whatever escapes the routing fail
 * closed: every connection goes to a proxy on a closed loopback port (`<-loopback>` removes
 * Chromium's implicit bypass of loopback), no name resolves, and the browser's own background
 * traffic (updates, safe browsing, sync, pings, prediction) is off.
 */
export const confinedBrowserArgs: readonly string[] = [
  '--proxy-server=127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-pings',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-features=NetworkPrediction,OptimizationHints,MediaRouter,InterestFeedContentSuggestions',
  '--dns-prefetch-disable',
];

/**
 * Starts headless Chromium at `path` with the confined flags (a fresh temporary profile that
 * playwright-core removes on close; no sandbox when running as root, which Chromium refuses).
 */
export async function launchConfinedBrowser(path: string): Promise<Browser> {
  return chromium.launch({
    executablePath: path,
    headless: true,
    timeout: launchTimeoutMs,
    chromiumSandbox: process.getuid?.() !== 0,
    args: [...confinedBrowserArgs],
  });
}
