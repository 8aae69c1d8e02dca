import {
  baselineRequest,
  injectPayload,
  parameterLocations,
  type InjectedRequest,
  type InjectionPoint,
} from '../check-kit/injection.ts';
import { needsOtherValues, sampleValuesOf } from '../check-kit/sample-values.ts';
import { createActiveCheck, reportAtPoint, type InjectedSender } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { confirmDelay, delaySeconds, describeDelay, reachingValues, timedSend } from './time-delay.ts';

/** Stable id of the OS command injection check. */
export const commandInjectionCheckId = 'command-injection';

const KIND: FindingKind = {
  checkId: commandInjectionCheckId,
  title: 'OS command injection',
  cwe: 78,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  severity: 'high',
  owasp: 'A03:2021-Injection',
  description:
    'A request parameter is passed to an operating-system shell: shell separators in it run further commands.',
  risk: 'An attacker runs any command with the rights of the application: full control of the server and a foothold in the network.',
  remediation:
    "Do not call a shell with input: use the language's API for the task, or run programs with an argument array (no shell) and validate every argument against an allow-list (an IP address, a host name).",
  references: [
    { link: 'https://owasp.org/www-community/attacks/Command_Injection', name: 'OWASP: Command Injection' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/OS_Command_Injection_Defense_Cheat_Sheet.html',
      name: 'OWASP OS Command Injection Defense Cheat Sheet',
    },
  ],
};

/** Shell separators that start a second command after the original value. */
const SEPARATORS: Array<(command: string) => string> = [
  (c) => `;${c}`,
  (c) => `|${c}`,
  (c) => `$(${c})`,
  (c) => `\`${c}\``,
  (c) => `&&${c}`,
];

/** The product the echo payload makes the shell compute: its echo alone never shows it. */
const ECHO_COMMAND = 'echo prmtr$((1337*3))';
const ECHO_PROOF = 'prmtr4011';

/** Values tried in place of the crawled one after the site's own: what a ping or lookup form expects. */
const FIXED_VALUES = ['127.0.0.1'];

/** Output-based test of one point: true when a separator's echo came back computed. */
async function testOutput(
  point: InjectionPoint,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
  origin: string,
): Promise<boolean> {
  for (const separator of SEPARATORS) {
    const payload = separator(ECHO_COMMAND);
    const exchange = await send(injectPayload(point, payload, 'append'));
    const offset = exchange.body.indexOf(ECHO_PROOF);
    if (offset < 0 || page.exchange.body.includes(ECHO_PROOF)) continue;
    await reportAtPoint(KIND, point, page, context, {
      exchange,
      evidence: { value: ECHO_PROOF, offset },
      confirmation: `by output${origin}: with ${JSON.stringify(payload)} appended the answer holds ${ECHO_PROOF}, which only a shell evaluating $((1337*3)) prints`,
    });
    return true;
  }
  return false;
}

/** Time-based test of one point, `baselineOf` its value's request: true when a separator's sleep delayed the answer. */
async function testTime(
  point: InjectionPoint,
  baselineOf: InjectedRequest,
  page: CrawledPage,
  context: CheckContext,
  send: InjectedSender,
  origin: string,
): Promise<boolean> {
  const baseline = await timedSend(send, baselineOf);
  for (const separator of SEPARATORS) {
    const payload = separator(`sleep ${delaySeconds}`);
    const controlPayload = separator('sleep 0');
    const proof = await confirmDelay(
      send,
      baseline,
      injectPayload(point, payload, 'append'),
      injectPayload(point, controlPayload, 'append'),
    );
    if (proof === undefined) continue;
    await reportAtPoint(KIND, point, page, context, {
      exchange: proof.second.exchange,
      confirmation: `${describeDelay(payload, controlPayload, proof, baseline)}${origin}`,
    });
    return true;
  }
  return false;
}

/**
 * OS command injection. Output-based: each separator runs `echo prmtr$((1337*3))`, reported
 * when `prmtr4011` (computed by a shell, never a plain echo of the payload) appears. Time-based:
 * each separator runs `sleep 4`; a hit needs the delay over the baseline's time, then a fast
 * control (`sleep 0`), then the delay again, so a slow moment of the site is not a finding.
 * When the crawled value finds nothing, the values the site itself uses for the parameter name
 * and `127.0.0.1` (a ping or lookup form refuses a word before its shell runs) are tried in its
 * place; those that answer differently from it get both tests again.
 * The site's cookies are tested too, not request headers.
 */
export function createCommandInjectionCheck(): PageCheck {
  const active = createActiveCheck({
    id: commandInjectionCheckId,
    // Site cookies too (a cookie's value passed to a script); request headers reach a shell too rarely to pay 11 requests per path.
    locations: [...parameterLocations, 'cookie'],
    async test(point, page, context, send) {
      if (await testOutput(point, page, context, send, '')) return;
      if (await testTime(point, baselineRequest(point), page, context, send, '')) return;
      const pool = sampleValuesOf(context.session);
      if (!needsOtherValues(point, pool)) return;
      const candidates = [...pool.valuesFor(point.name, point.value), ...FIXED_VALUES];
      for (const variant of await reachingValues(point, candidates, page.exchange, send)) {
        const origin = ` (with ${JSON.stringify(variant.point.value)} as the value)`;
        if (await testOutput(variant.point, page, context, send, origin)) return;
        if (await testTime(variant.point, variant.request, page, context, send, origin)) return;
      }
    },
  });
  return {
    id: active.id,
    async inspect(page, context) {
      sampleValuesOf(context.session).observe(page);
      await active.inspect(page, context);
    },
  };
}
