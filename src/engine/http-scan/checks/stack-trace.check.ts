import { isScriptPage } from './exposure-probe.ts';
import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the stack-trace check. */
export const stackTraceCheckId = 'stack-trace';

/** Stack-trace findings per origin at most: a safety valve for sites whose every page fails differently. */
export const maxStackTracesPerOrigin = 25;

const KIND: FindingKind = {
  checkId: stackTraceCheckId,
  title: 'Stack trace or debug page disclosed',
  cwe: 209,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'medium',
  owasp: 'A05:2021-Security Misconfiguration',
  description: "A response shows an error's stack trace or a framework's debug page instead of a generic error page.",
  risk: 'Traces reveal source file paths, framework and library versions, code structure and sometimes queries, settings or secrets; debug pages may even offer an interactive console.',
  remediation:
    'Turn off debug mode in production (`DEBUG = False`, `APP_DEBUG=false`, `customErrors mode="On"`, `display_errors = Off`, the production environment of the framework), log errors on the server and answer a generic error page.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/08-Testing_for_Error_Handling/02-Testing_for_Stack_Traces',
      name: 'OWASP WSTG: Testing for stack traces',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Error_Handling_Cheat_Sheet.html',
      name: 'OWASP Error Handling Cheat Sheet',
    },
  ],
};

/** A recognised trace or debug page: its shape, the evidence, and what groups findings of one cause. */
export interface StackTrace extends BodyEvidence {
  shape: string;
  /** Debug pages are one cause per origin; traces one per distinct list of frames. */
  signature: string;
}

interface Shape {
  name: string;
  label: string;
  /** Cheap substring tests (any of them) before the regular expressions run. */
  hints: string[];
  /** The evidence. */
  pattern: RegExp;
  /** Frames (file and line) of a trace; absent for debug pages, which are origin-wide. */
  frame?: RegExp;
  /** Frames needed (default 0) unless `header` ends right before the evidence. */
  minFrames?: number;
  /** The exception line that opens a trace, ending just before its first frame. */
  header?: RegExp;
}

// Line breaks as they appear in text, in HTML and inside JSON strings.
const NL = String.raw`(?:\r?\n|(?:\\r)?\\n|<br\s*/?>)`;
const exceptionLine = (name: string): RegExp => new RegExp(String.raw`\b${name}(?:Exception|Error)\b[^\n]*${NL}\s*$`);

// Debug pages first (one finding per origin), then traces (one per distinct frames).
const SHAPES: Shape[] = [
  {
    name: 'django',
    label: 'Django debug page',
    hints: ['DEBUG = True'],
    pattern: /DEBUG = True(?:<\/code>)? in your Django settings file/,
  },
  {
    name: 'werkzeug',
    label: 'Werkzeug debugger',
    hints: ['Werkzeug', 'WSGI'],
    pattern: /The debugger caught an exception in your WSGI application|\/\/ Werkzeug Debugger/,
  },
  {
    name: 'rails',
    label: 'Rails debug page',
    hints: ['Action Controller', 'Rails.root'],
    pattern: /Action Controller: Exception caught|Rails\.root: [/A-Za-z]/,
  },
  {
    name: 'laravel',
    label: 'Laravel debug page',
    hints: ['ramework', 'Whoops'],
    pattern: /laravel[\\/]+framework[\\/]+src[\\/]+Illuminate[\\/]+\w+|class="Whoops container"/,
  },
  {
    name: 'aspnet',
    label: 'ASP.NET error page with details',
    hints: ['Server Error in'],
    pattern: /Server Error in '[^'\n]*' Application\.(?=[\s\S]*(?:Exception Details:|Stack Trace:))/,
  },
  {
    name: 'python',
    label: 'Python traceback',
    hints: ['Traceback'],
    pattern: new RegExp(String.raw`Traceback \(most recent call last\):(?:\s|${NL})*File \\?"[^"\\\n]+\\?", line \d+`),
    frame: /File \\?"([^"\\\n]+)\\?", line (\d+)/g,
  },
  {
    name: 'java',
    label: 'Java stack trace',
    hints: ['.java:', '.kt:', '.scala:', '.groovy:'],
    pattern: /(?:\bat\s+|^[ \t]+|\t)[a-zA-Z_$][\w$]*(?:\.[\w$&;<>]+)+\([\w$]+\.(?:java|kt|scala|groovy):\d+\)/m,
    frame: /[\w$]+\.(?:java|kt|scala|groovy):\d+(?=\))/g,
    minFrames: 2,
    header: exceptionLine(String.raw`[a-z][\w$]*(?:\.[\w$]+)+`),
  },
  {
    name: 'dotnet',
    label: '.NET stack trace',
    hints: [':line '],
    pattern: /\bat\s+[\w.`<>[\], ]{1,300}\([^()\n]{0,300}\)\s+in\s+(?:[A-Za-z]:\\|\/)[^\n:<]+\.(?:cs|vb|fs):line \d+/,
    frame: /[^\s\\/]+\.(?:cs|vb|fs):line \d+/g,
  },
  {
    name: 'node',
    label: 'Node.js stack trace',
    hints: ['at '],
    pattern:
      /\bat\s+(?:[^\s()][^()\n]{0,200}?\s+\()?(?:\/|[A-Za-z]:\\{1,2}|file:\/\/\/)[^()\s:]+\.(?:js|mjs|cjs|ts|jsx|tsx):\d+:\d+\)?/,
    frame: /(?:(?:\/|[A-Za-z]:\\{1,2}|file:\/\/\/)[^()\s:]+\.(?:js|mjs|cjs|ts|jsx|tsx)|node:[\w/]+):\d+:\d+/g,
    minFrames: 2,
    header: exceptionLine(String.raw`(?:[A-Z]\w*)?`),
  },
  {
    name: 'php',
    label: 'PHP error with file path',
    hints: [' on line '],
    pattern:
      /(?:<b>)?(?:Fatal error|Parse error|Warning|Notice|Deprecated)(?:<\/b>)?:\s+[\s\S]{0,1500}? in (?:<b>)?(?:\/|[A-Za-z]:\\)[^<\s]+\.(?:php\d?|phtml|inc)(?:<\/b>)? on line (?:<b>)?\d+/,
    frame: /(?:\/|[A-Za-z]:\\)[^<\s]+\.(?:php\d?|phtml|inc)(?:<\/b>)? on line (?:<b>)?\d+/g,
  },
  {
    name: 'go',
    label: 'Go panic',
    hints: ['goroutine'],
    pattern: new RegExp(String.raw`panic: [^\n]*(?:${NL}|\s)+goroutine \d+ \[running\]:`),
    frame: /[\w.-]+\.go:\d+/g,
  },
];

/**
 * The first stack trace or debug page a response body shows, or undefined. Recognised: Django,
 * Werkzeug, Rails and Laravel debug pages, the ASP.NET error page with exception details, and
 * Python, Java (Kotlin, Scala), .NET, Node.js, PHP and Go traces; a trace needs real frames
 * (file and line), so prose that merely mentions an exception does not count.
 */
export function findStackTrace(body: string): StackTrace | undefined {
  for (const shape of SHAPES) {
    if (!shape.hints.some((hint) => body.includes(hint))) continue;
    const match = shape.pattern.exec(body);
    if (match === null) continue;
    const frames = shape.frame === undefined ? [] : [...body.matchAll(shape.frame)].slice(0, 20).map((m) => m[0]);
    const hasHeader = shape.header?.test(body.slice(Math.max(0, match.index - 300), match.index)) === true;
    if (frames.length < (shape.minFrames ?? 0) && !hasHeader) continue;
    const signature = shape.frame === undefined ? shape.name : `${shape.name} ${frames.join('|')}`;
    return { shape: shape.label, value: match[0], offset: match.index, signature };
  }
  return undefined;
}

/** True for responses that cannot be error pages: scripts and styles (whose code may parse traces). */
function isCode(page: CrawledPage): boolean {
  return isScriptPage(page) || /\btext\/css\b/i.test(headerValue(page.exchange, 'content-type') ?? '');
}

/**
 * Stack traces and debug pages in crawled responses (passive: no request). Findings of one cause
 * are grouped: a debug page once per origin, a trace once per origin and list of frames (the same
 * failing handler behind many URLs is one finding), located at the first path that showed it;
 * at most 25 per origin.
 */
export function createStackTraceCheck(): PageCheck {
  const seen = new Set<string>();
  const perOrigin = new Map<string, number>();
  return {
    id: stackTraceCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (isCode(page)) return;
      const trace = findStackTrace(page.exchange.body);
      if (trace === undefined) return;
      const count = perOrigin.get(page.originText) ?? 0;
      const causeKey = `${page.originText} ${trace.signature}`;
      const pathKey = `${page.originText}${page.url.pathname}`;
      if (count >= maxStackTracesPerOrigin || seen.has(causeKey) || seen.has(pathKey)) return;
      seen.add(causeKey);
      seen.add(pathKey);
      perOrigin.set(page.originText, count + 1);
      await context.report(
        buildFinding(KIND, {
          location: pathKey,
          host: page.origin.host,
          exchange: page.exchange,
          evidence: trace,
          title: `${KIND.title}: ${trace.shape}`,
          observation: `${page.url.href} (status ${page.exchange.status}) shows ${/^[AEIOU]/.test(trace.shape) ? 'an' : 'a'} ${trace.shape}: "${trace.value.slice(0, 200)}".`,
        }),
      );
    },
  };
}
