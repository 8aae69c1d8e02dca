import { spotsOf, type SiteModule, type SiteRequest, type SiteResponse } from './types.ts';

/**
 * The server-side code evaluation spots of the fixture site (check `code-evaluation`). Nothing
 * here calls `eval`: the vulnerable routes hand the text the flawed code would evaluate (the
 * parameter concatenated into JavaScript or PHP source) to a tiny evaluator that knows numbers,
 * quoted strings, `+ - * /` and parentheses, and nothing else, so a scanner's expression comes
 * back computed as it would from the real `eval` while no input ever runs as code. The safe twin
 * only prints the value, escaped.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string, status = 200): SiteResponse => ({
  status,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`,
});
const queryOf = (request: SiteRequest, name: string): string => request.url.searchParams.get(name) ?? '';

type Value = number | string;

/**
 * Evaluates a JavaScript-like expression of number and string literals with `+ - * /` and
 * parentheses (`+` concatenates when either side is a string, as in JavaScript); undefined for
 * anything else (what `eval` would answer with a SyntaxError).
 */
export function evaluateExpression(source: string): Value | undefined {
  const tokens = source.match(/\s*(?:\d+(?:\.\d+)?|'[^']*'|"[^"]*"|[-+*/()]|\S)/g)?.map((t) => t.trim()) ?? [];
  let index = 0;
  const peek = (): string | undefined => tokens[index];
  const primary = (): Value | undefined => {
    const token = tokens[index++];
    if (token === undefined) return undefined;
    if (/^\d/.test(token)) return Number(token);
    if (/^(['"]).*\1$/s.test(token)) return token.slice(1, -1);
    if (token === '-') {
      const value = primary();
      return typeof value === 'number' ? -value : undefined;
    }
    if (token === '(') {
      const value = sum();
      return tokens[index++] === ')' ? value : undefined;
    }
    return undefined;
  };
  const product = (): Value | undefined => {
    let left = primary();
    while (left !== undefined && (peek() === '*' || peek() === '/')) {
      const op = tokens[index++];
      const right = primary();
      if (typeof left !== 'number' || typeof right !== 'number') return undefined;
      left = op === '*' ? left * right : left / right;
    }
    return left;
  };
  const sum = (): Value | undefined => {
    let left = product();
    while (left !== undefined && (peek() === '+' || peek() === '-')) {
      const op = tokens[index++];
      const right = product();
      if (right === undefined) return undefined;
      if (op === '+') left = typeof left === 'string' || typeof right === 'string' ? `${left}${right}` : left + right;
      else if (typeof left === 'number' && typeof right === 'number') left = left - right;
      else return undefined;
    }
    return left;
  };
  const value = sum();
  return index === tokens.length ? value : undefined;
}

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  '/eval/calc': (request) => {
    const expr = queryOf(request, 'expr');
    if (request.isSafe) {
      // Fixed: only a number is accepted; anything else is shown back, escaped, never computed.
      const number = /^-?\d+(?:\.\d+)?$/.test(expr) ? Number(expr) : undefined;
      return page(
        'Calculator',
        `<p>${number === undefined ? `Not a number: ${escapeHtml(expr)}` : `Result: ${number}`}</p>`,
      );
    }
    // Node: res.send('Result: ' + eval(req.query.expr))
    const value = evaluateExpression(expr);
    return value === undefined
      ? page('Calculator', '<p>Invalid expression.</p>', 400)
      : page('Calculator', `<p>Result: ${escapeHtml(String(value))}</p>`);
  },
  '/eval/greeting': (request) => {
    const name = queryOf(request, 'name');
    if (request.isSafe) return page('Greeting', `<p>Hello, ${escapeHtml(name)}!</p>`);
    // Node: eval("'Hello, " + req.query.name + "!'")
    const value = evaluateExpression(`'Hello, ${name}!'`);
    return value === undefined
      ? page('Greeting', '<p>Something went wrong.</p>', 500)
      : page('Greeting', `<p>${escapeHtml(String(value))}</p>`);
  },
  '/eval/label.php': (request) => {
    const title = queryOf(request, 'title');
    if (request.isSafe) return page('Label', `<p>${escapeHtml(title)}</p>`);
    // PHP: eval('$title = "' . $_GET['title'] . '";'); echo "<p>$title</p>";
    if (!title.includes('"')) return page('Label', `<p>${escapeHtml(title)}</p>`);
    const statement = /^([^"]*)"\s*;\s*echo\s+([^;]+);\s*\/\/.*$/s.exec(title);
    const echoed = statement === null ? undefined : evaluateExpression(statement[2]!);
    if (statement === null || echoed === undefined) return page('Error', '<p>Internal Server Error</p>', 500);
    // What `echo` printed comes before the page, as PHP writes it.
    const label = page('Label', `<p>${escapeHtml(statement[1]!)}</p>`);
    return { ...label, body: `${escapeHtml(String(echoed))}${label.body ?? ''}` };
  },
};

const spot = spotsOf('injection');

/** The code evaluation routes: a Node calculator, a Node greeting built in a string literal, a PHP label. */
export const evaluationModule: SiteModule = {
  name: 'evaluation',
  spots: [
    spot(
      'code-eval-expression',
      'code-evaluation',
      '/eval/calc?expr=',
      'Node eval of the whole parameter: 9017*9011 answers 81252187',
    ),
    spot(
      'code-eval-js-string',
      'code-evaluation',
      '/eval/greeting?name=',
      "Node eval of a single-quoted string literal holding the parameter: '+9017*9011+' breaks out",
    ),
    spot(
      'code-eval-php',
      'code-evaluation',
      '/eval/label.php?title=',
      'PHP eval of a double-quoted string holding the parameter: ";echo 9017*9011;// runs a statement',
    ),
  ],
  links: ['/eval/calc?expr=2*3', '/eval/greeting?name=Ann', '/eval/label.php?title=Report'],
  handle(request) {
    return routes[request.url.pathname]?.(request);
  },
};
