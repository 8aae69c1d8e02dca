import { baselineRequest, injectPayload, parameterLocations } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from '../check-kit/page-check.ts';
import { confirmDelay, delaySeconds, describeDelay, timedSend } from './time-delay.ts';

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

/**
 * OS command injection. Output-based: each separator runs `echo prmtr$((1337*3))`, reported
 * when `prmtr4011` (computed by a shell, never a plain echo of the payload) appears. Time-based:
 * each separator runs `sleep 4`; a hit needs the delay over the baseline's time, then a fast
 * control (`sleep 0`), then the delay again, so a slow moment of the site is not a finding.
 * The site's cookies are tested too, not request headers.
 */
export function createCommandInjectionCheck(): PageCheck {
  return createActiveCheck({
    id: commandInjectionCheckId,
    // Site cookies too (a cookie's value passed to a script); request headers reach a shell too rarely to pay 11 requests per path.
    locations: [...parameterLocations, 'cookie'],
    async test(point, page, context, send) {
      for (const separator of SEPARATORS) {
        const payload = separator(ECHO_COMMAND);
        const exchange = await send(injectPayload(point, payload, 'append'));
        const offset = exchange.body.indexOf(ECHO_PROOF);
        if (offset < 0 || page.exchange.body.includes(ECHO_PROOF)) continue;
        await reportAtPoint(KIND, point, page, context, {
          exchange,
          evidence: { value: ECHO_PROOF, offset },
          confirmation: `by output: with ${JSON.stringify(payload)} appended the answer holds ${ECHO_PROOF}, which only a shell evaluating $((1337*3)) prints`,
        });
        return;
      }
      const baseline = await timedSend(send, baselineRequest(point));
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
          confirmation: describeDelay(payload, controlPayload, proof, baseline),
        });
        return;
      }
    },
  });
}
