import { randomBytes } from 'node:crypto';
import { allLocations, describePoint, injectPayload } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import { isHtmlResponse, type PageCheck } from '../check-kit/page-check.ts';
import { breakoutsFor, describeContext, describeEffect, findReflections, hasEffect } from './xss-context.ts';

/** Stable id of the reflected-XSS check. */
export const reflectedXssCheckId = 'reflected-xss';

const KIND: FindingKind = {
  checkId: reflectedXssCheckId,
  title: 'Reflected cross-site scripting',
  cwe: 79,
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
  severity: 'medium',
  owasp: 'A03:2021-Injection',
  description:
    'A request parameter is written into the HTML response without the encoding its context needs: a payload made for that context (a tag, an attribute, a script string, a URL) came back able to run script.',
  risk: "A link or form crafted by an attacker runs script in the victim's browser in the site's origin: session theft, actions on the user's behalf, page defacement.",
  remediation:
    "Encode every value for the context it is written into, with the template engine's contextual auto-escaping: HTML-encode text and quoted attribute values (always quote attributes), JSON-encode values put into scripts and escape `<` there, and allow only http(s) (or relative) URLs in href, src and action attributes. Validate input, and add a Content-Security-Policy without 'unsafe-inline' as a second line of defence.",
  references: [
    { link: 'https://owasp.org/www-community/attacks/xss/', name: 'OWASP: Cross Site Scripting' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Cross_Site_Scripting_Prevention_Cheat_Sheet.html',
      name: 'OWASP XSS Prevention Cheat Sheet',
    },
  ],
};

/** Breakout payloads tried per point at most: a page reflecting a value in many places is judged on its first contexts. */
const maxBreakouts = 6;

/** A unique, harmless token: letters and digits only, so every encoder leaves it alone and it can name an element or a function. */
export function xssToken(): string {
  return `prmtr${randomBytes(5).toString('hex')}`;
}

/**
 * Reflected XSS, context-aware, in every injection point (query, form and JSON fields, path
 * segments, the tested request headers and site cookies). A harmless unique probe goes first;
 * where the HTML answer reflects it, htmlparser2 tells the context of each reflection (text,
 * raw text, comment, attribute value and its quote, URL attribute, event handler, script string
 * or code). Each context then gets its breakout payload, with a fresh canary name; reported only
 * when the second answer, parsed again, shows the payload effective: the new element, the new
 * handler attribute, the canary called as script code, or a `javascript:` URL. One finding per
 * point, saying the context and how it was confirmed.
 */
export function createReflectedXssCheck(): PageCheck {
  return createActiveCheck({
    id: reflectedXssCheckId,
    locations: allLocations,
    async test(point, page, context, send) {
      const probe = xssToken();
      const probed = await send(injectPayload(point, probe));
      if (!isHtmlResponse(probed)) return;
      let tries = 0;
      for (const reflection of findReflections(probed.body, probe)) {
        for (const breakout of breakoutsFor(reflection, xssToken())) {
          if (tries >= maxBreakouts) return;
          tries += 1;
          const exchange = await send(injectPayload(point, breakout.payload));
          if (!isHtmlResponse(exchange) || !hasEffect(exchange.body, breakout.effect)) continue;
          const offset = exchange.body.indexOf(breakout.payload);
          const evidence =
            offset >= 0
              ? { value: breakout.payload, offset }
              : { value: breakout.effect.name, offset: exchange.body.indexOf(breakout.effect.name) };
          await reportAtPoint(KIND, point, page, context, {
            exchange,
            ...(evidence.offset >= 0 ? { evidence } : {}),
            confirmation: `in context: the probe ${probe} in ${describePoint(point)} came back in ${describeContext(reflection)}; the breakout ${JSON.stringify(breakout.payload)} for that context, parsed again, made ${describeEffect(breakout.effect)}`,
          });
          return;
        }
      }
    },
  });
}
