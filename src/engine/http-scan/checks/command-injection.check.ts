import type { HttpExchange } from '../guarded-http-client.ts';
import { baselineRequest, injectPayload } from '../injection.ts';
import { createActiveCheck, reportAtPoint, type InjectedSender } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import type { PageCheck } from './page-check.ts';

/** Stable id of the OS command injection check. */
export const commandInjectionCheckId = 'command-injection';

const KIND: FindingKind = {
  checkId: commandInjectionCheckId,
  title: 'OS command injection',
  cwe: 78,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  severity: 'high',
  owasp: 'A03:2021-Injection',
  description: 'A request parameter is passed to an operating-system shell: shell separators in it run further commands.',
  risk: 'An attacker runs any command with the rights of the application: full control of the server and a foothold in the network.',
  remediation: 'Do not call a shell with input: use the language\'s API for the task, or run programs with an argument array (no shell) and validate every argument against an allow-list (an IP address, a host name).',
  references: [
    { link: 'https://owasp.org/www-community/attacks/Command_Injection', name: 'OWASP: Command Injection' },
    { link: 'https://cheatsheetseries.owasp.org/cheatsheets/OS_Command_Injection_Defense_Cheat_Sheet.html', name: 'OWASP OS Command Injection Defense Cheat Sheet' },
  ],
};

/** Shell separators that start a second command after the original value. */
const SEPARATORS: Array<(command: string) => string> = [(c) => `;${c}`, (c) => `|${c}`, (c) => `$(${c})`, (c) => `\`${c}\``, (c) => `&&${c}`];

/** The product the echo payload makes the shell compute: its echo alone never shows it. */
const ECHO_COMMAND = 'echo prmtr$((1337*3))';
const ECHO_PROOF = 'prmtr4011';

/** Seconds the time-based payload sleeps; a hit must be confirmed twice, with a short control between. */
export const sleepSeconds = 4;

async function timed(send: InjectedSender, request: ReturnType<typeof injectPayload>): Promise<{ exchange: HttpExchange; ms: number }> {
  const started = performance.now();
  const exchange = await send(request);
  return { exchange, ms: performance.now() - started };
}

/**
 * OS command injection. Output-based: each separator runs `echo prmtr$((1337*3))`, reported
 * when `prmtr4011` (computed by a shell, never a plain echo of the payload) appears. Time-based:
 * each separator runs `sleep 4`; a hit needs the delay over the baseline's time, then a fast
 * control (`sleep 0`), then the delay again, so a slow moment of the site is not a finding.
 */
export function createCommandInjectionCheck(): PageCheck {
  return createActiveCheck({
    id: commandInjectionCheckId,
    async test(point, page, context, send) {
      for (const separator of SEPARATORS) {
        const payload = separator(ECHO_COMMAND);
        const exchange = await send(injectPayload(point, payload, 'append'));
        const offset = exchange.body.indexOf(ECHO_PROOF);
        if (offset < 0 || page.exchange.body.includes(ECHO_PROOF)) continue;
        await reportAtPoint(KIND, point, page, context, { exchange, evidence: { value: ECHO_PROOF, offset }, confirmation: `by output: with ${JSON.stringify(payload)} appended the answer holds ${ECHO_PROOF}, which only a shell evaluating $((1337*3)) prints` });
        return;
      }
      const baseline = await timed(send, baselineRequest(point));
      const threshold = baseline.ms + sleepSeconds * 1000 * 0.9;
      for (const separator of SEPARATORS) {
        const payload = separator(`sleep ${sleepSeconds}`);
        const first = await timed(send, injectPayload(point, payload, 'append'));
        if (first.ms < threshold) continue;
        const control = await timed(send, injectPayload(point, separator('sleep 0'), 'append'));
        if (control.ms >= threshold) continue;
        const second = await timed(send, injectPayload(point, payload, 'append'));
        if (second.ms < threshold) continue;
        await reportAtPoint(KIND, point, page, context, {
          exchange: second.exchange,
          confirmation: `by timing, twice: with ${JSON.stringify(payload)} appended the answer took ${Math.round(first.ms)} ms and ${Math.round(second.ms)} ms, with ${JSON.stringify(separator('sleep 0'))} ${Math.round(control.ms)} ms, the original request ${Math.round(baseline.ms)} ms`,
        });
        return;
      }
    },
  });
}
