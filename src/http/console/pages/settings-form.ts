import type { SessionContext } from '../../../core/accounts/session.service.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { problemOf } from './assets-shared.page.ts';

/**
 * The panel of a settings page (an asset's, a scan profile's): the refusal of the last save, a
 * note for a role that only reads, and the form, whose fields are disabled for that role.
 */
export function settingsForm(options: {
  signedIn: SessionContext;
  action: string;
  problem: { code: number; message: string } | undefined;
  canSave: boolean;
  formClass: string;
  fields: Html;
}): Html {
  const { signedIn, action, problem, canSave, formClass, fields } = options;
  const role = signedIn.member.role;
  return html`<section class="panel">
  ${problemOf(problem, 'settings-problem')}
  ${canSave ? '' : html`<p class="hint">Your role (${role}) reads these settings; an Admin changes them.</p>`}
  <form method="post" action="${action}" class="${formClass}"${problem === undefined ? '' : html` aria-describedby="settings-problem"`}>
    ${csrfField(signedIn)}
    <fieldset class="plain"${canSave ? '' : html` disabled`}>
      ${fields}
      <button type="submit" class="primary">Save the settings</button>
    </fieldset>
  </form>
</section>`;
}
