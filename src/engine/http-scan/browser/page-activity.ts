import type { Page } from 'playwright-core';

/** The in-page function that tells the page's own activity (defined by activityInitScript). */
export const activityFunctionName = '__perimeterActivity';

/**
 * Runs before any script of a page and keeps count of what the page's scripts still wait for:
 * fetch calls, the reading of their bodies (text, json …) and XMLHttpRequests. A count drops one
 * task after its promise settles or its request ends, so that the callbacks chained on it
 * (`fetch(…).then((r) => r.text()).then(render)`) have run first and the count never reaches
 * zero between a fetch and the rendering of its answer. Changes to the DOM (nodes, text, the
 * links' and forms' targets) mark the page as active too. `__perimeterActivity()` answers
 * `[pending, ms since the last activity]`, in the page's own time: a busy or starved page is
 * not taken for a quiet one.
 */
export const activityInitScript = `(() => {
  let pending = 0;
  let last = performance.now();
  const touch = () => { last = performance.now(); };
  const begin = () => {
    pending += 1;
    touch();
    let isOver = false;
    return () => {
      if (isOver) return;
      isOver = true;
      setTimeout(() => { pending -= 1; touch(); }, 0);
    };
  };
  const track = (promise) => { const end = begin(); promise.then(end, end); return promise; };
  const fetch = window.fetch;
  if (typeof fetch === 'function') window.fetch = function (...args) { return track(fetch.apply(this, args)); };
  for (const name of ['text', 'json', 'arrayBuffer', 'blob', 'formData']) {
    const read = Response.prototype[name];
    if (typeof read === 'function') Response.prototype[name] = function (...args) { return track(read.apply(this, args)); };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    const end = begin();
    this.addEventListener('loadend', end, { once: true });
    try { return send.apply(this, args); } catch (err) { end(); throw err; }
  };
  new MutationObserver(touch).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ['href', 'action', 'src', 'formaction'],
  });
  Object.defineProperty(window, '${activityFunctionName}', { value: () => [pending, performance.now() - last] });
})();`;

/**
 * Whether the page itself is quiet: nothing pending in it for `quietMs` of its own time. A page
 * without the tracking (an error page, a document the init script did not reach) counts as
 * quiet; one that cannot answer within `timeoutMs` (busy, navigating) does not, unless it closed.
 */
export async function isPageQuiet(page: Page, quietMs: number, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const activity = await Promise.race([
      page.evaluate(
        (name) => (window as unknown as Record<string, (() => [number, number]) | undefined>)[name]?.(),
        activityFunctionName,
      ),
      timeout,
    ]);
    if (activity === 'timeout') return page.isClosed();
    if (activity === undefined) return true;
    const [pending, idleMs] = activity;
    return pending === 0 && idleMs >= quietMs;
  } catch {
    return page.isClosed(); // the page navigated (its context is gone) or closed
  } finally {
    clearTimeout(timer);
  }
}
