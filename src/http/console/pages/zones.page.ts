import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { AppError, isAppError } from '../../../core/errors/app-error.ts';
import { createLookupJob, listRecentLookupJobs } from '../../../core/zones/zone-lookup.service.ts';
import type { LookupJob } from '../../../core/zones/zone-lookup.types.ts';
import {
  transferAndIndex,
  uploadZoneFile,
  zoneFileLimit,
  zoneLookupLimit,
  type ZoneIndexResult,
} from '../../../core/zones/zone-upload.service.ts';
import { enqueueZoneLookup } from '../../../jobs/zone-lookup.job.ts';
import { httpStatusOf } from '../../error-status.ts';
import { requiredUpload } from '../../request-input.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { problemOf } from './assets-shared.page.ts';
import { consoleCaller } from './console-caller.ts';
import { lookupRoutes, lookupStatusWords, percentOf } from './zones-lookup.page.ts';
import { whenOf } from './team-shared.ts';

/**
 * The Zones page: upload a zone file, transfer a zone (AXFR) and upload a list of names to look
 * up. Each form calls the core service of the v2 zone operation (uploadZoneFile,
 * transferAndIndex, createLookupJob) for the signed-in member's team, so a bad value gets the
 * API's message and code. Files come as multipart/form-data and are checked against the API's
 * own size limits. Reading is for every role; indexing adds names (and may add the zone's apex
 * as an asset), so it is the `scan` action, as adding an asset is.
 */

/** Which form a problem belongs to, with the values to show again. */
type ZoneForm = 'file' | 'transfer' | 'lookup';

interface ZoneProblem {
  form: ZoneForm;
  code: number;
  message: string;
  values: Record<string, string>;
  /** The fields the error names (its `parameters`). */
  parameters: string[];
}

/** Room for the multipart framing and the small text fields around a file. */
const multipartSlack = 64 * 1024;

/** A file field's bytes, as the API's streamed body would arrive; 1052 past the API's limit. */
function fileBody(ctx: ConsoleContext, field: string, limit: number): AsyncIterable<Buffer> {
  const data = ctx.files.get(field)?.data ?? Buffer.alloc(0);
  if (data.length > limit)
    throw new AppError(1052, `Request body too large for this operation (at most ${limit} bytes)`);
  return (async function* chunks() {
    for (let at = 0; at < data.length; at += 64 * 1024) yield data.subarray(at, at + 64 * 1024);
  })();
}

function fieldOf(problem: ZoneProblem | undefined, form: ZoneForm, name: string): string {
  return problem?.form === form ? (problem.values[name] ?? '') : '';
}

function invalid(problem: ZoneProblem | undefined, form: ZoneForm, id: string): Html {
  return problem?.form === form ? html` aria-invalid="true" aria-describedby="${id}"` : html``;
}

/** `aria-invalid` on a field the problem names. */
function names(problem: ZoneProblem | undefined, field: string): Html {
  return problem?.parameters.includes(field) === true ? html` aria-invalid="true"` : html``;
}

/** What sets one of the three forms apart; `zoneForm` gives them the same frame. */
interface ZoneFormSpec {
  /** Also names the heading (`zone-<form>`) and the problem (`<form>-problem`). */
  form: ZoneForm;
  title: string;
  hint: string;
  action: string;
  /** A form with a file field posts multipart/form-data. */
  hasFile: boolean;
  fields: Html;
  submit: string;
}

/** A form in its panel: heading, hint, the problem it caused (if any), its fields and its button. */
function zoneForm(ctx: ConsoleContext, problem: ZoneProblem | undefined, spec: ZoneFormSpec): Html {
  const shown = problem?.form === spec.form ? problem : undefined;
  return html`<section class="panel" aria-labelledby="${`zone-${spec.form}`}">
  <h2 id="${`zone-${spec.form}`}">${spec.title}</h2>
  <p class="hint">${spec.hint}</p>
  ${problemOf(shown, `${spec.form}-problem`)}
  <form method="post" action="${spec.action}"${spec.hasFile ? html` enctype="multipart/form-data"` : ''} class="stack">
    ${csrfField(ctx.signedIn)}
    ${spec.fields}
    <button type="submit" class="primary">${spec.submit}</button>
  </form>
</section>`;
}

function fileForm(ctx: ConsoleContext, problem: ZoneProblem | undefined): Html {
  return zoneForm(ctx, problem, {
    form: 'file',
    title: 'Upload a zone file',
    hint: "An RFC 1035 master file of at most 5 MB. Names under the team's root domain assets become subdomains; a zone the team does not have yet is added as a root asset.",
    action: '/zones/file',
    hasFile: true,
    fields: html`<label for="zone-file-input">Zone file</label>
    <input type="file" id="zone-file-input" name="file" required${invalid(problem, 'file', 'file-problem')}>
    <label for="origin">Origin <span class="optional">(optional)</span></label>
    <input id="origin" name="origin" autocomplete="off" spellcheck="false" value="${fieldOf(problem, 'file', 'origin')}" aria-describedby="origin-hint">
    <p class="hint" id="origin-hint">The zone's apex, for example example.com. Without it, the zone the file names (its first $ORIGIN or SOA owner) is used.</p>`,
    submit: 'Upload and index',
  });
}

function transferForm(ctx: ConsoleContext, problem: ZoneProblem | undefined): Html {
  const shown = problem?.form === 'transfer' ? problem : undefined;
  return zoneForm(ctx, problem, {
    form: 'transfer',
    title: 'Transfer a zone',
    hint: 'Asks the name server for the whole zone (AXFR over TCP) and indexes it like a zone file.',
    action: '/zones/transfer',
    hasFile: false,
    fields: html`<label for="nameServer">Name server</label>
    <input id="nameServer" name="nameServer" required autocomplete="off" spellcheck="false" value="${fieldOf(problem, 'transfer', 'nameServer')}" aria-describedby="nameServer-hint"${names(shown, 'nameServer')}>
    <p class="hint" id="nameServer-hint">A host name or IP address, with an optional :port; for example ns1.example.com or 192.0.2.53:5353.</p>
    <label for="zone">Zone</label>
    <input id="zone" name="zone" required autocomplete="off" spellcheck="false" value="${fieldOf(problem, 'transfer', 'zone')}" placeholder="example.com"${names(shown, 'zone')}>`,
    submit: 'Transfer and index',
  });
}

function lookupForm(ctx: ConsoleContext, problem: ZoneProblem | undefined): Html {
  return zoneForm(ctx, problem, {
    form: 'lookup',
    title: 'Look up names',
    hint: "A text file of at most 50 MB, one domain name per line. Each name under the team's root domain assets is resolved in the background; the next page shows the progress.",
    action: '/zones/lookups',
    hasFile: true,
    fields: html`<label for="lookup-file">Names, one per line</label>
    <input type="file" id="lookup-file" name="file" required${invalid(problem, 'lookup', 'lookup-problem')}>`,
    submit: 'Upload and look up',
  });
}

/** How many of the team's recent lookups the page lists. */
const recentLimit = 10;

function recentLookups(jobs: LookupJob[]): Html {
  if (jobs.length === 0) return html``;
  const rows = jobs.map(
    (j) => html`<tr>
  <td class="nowrap"><a href="${`/zones/lookups/${j.uuid}`}">${whenOf(j.created)}</a></td>
  <td><span class="${`status job-${j.status}`}">${lookupStatusWords[j.status]}</span></td>
  <td>${percentOf(j)}%</td>
  <td>${j.total}</td>
  <td>${j.succeeded}</td>
  <td>${j.failed}</td>
</tr>`,
  );
  return html`<section aria-labelledby="recent-lookups">
  <h2 id="recent-lookups">Recent lookups</h2>
  <div class="table-wrap" role="region" tabindex="0" aria-label="Recent lookups of the team"><table>
  <thead><tr><th scope="col">Uploaded</th><th scope="col">Status</th><th scope="col">Done</th><th scope="col">Names</th><th scope="col">Resolved</th><th scope="col">Failed</th></tr></thead>
  <tbody>${rows}</tbody></table></div>
  <p class="hint">Each lookup can be read for 10 days after its upload.</p>
</section>`;
}

async function zonesPage(ctx: ConsoleContext, problem?: ZoneProblem, status = 200): Promise<ConsoleAnswer> {
  const recent = await listRecentLookupJobs(ctx.deps.store, ctx.signedIn.team, recentLimit);
  const { role } = ctx.signedIn.member;
  const notice = noticeOf(ctx.query);
  const forms = roleAllows(role, 'scan')
    ? html`${fileForm(ctx, problem)}${transferForm(ctx, problem)}${lookupForm(ctx, problem)}`
    : html`<p class="hint">Your role (${role}) cannot index zones; an Editor or an Admin uploads zone files, transfers zones and looks up names.</p>`;
  const body = html`<h1>Zones</h1>
<p class="hint">DNS data of the team's domains: indexed names appear as subdomains of their root asset (<a href="/assets">Assets</a>).</p>
${forms}
${recentLookups(recent)}`;
  return {
    status,
    page: page(
      { title: 'Zones', signedIn: ctx.signedIn, section: 'zones', ...(notice === undefined ? {} : { notice }) },
      body,
    ),
  };
}

/** Runs a zone operation: on a rule's error the page again with the API's message, else back with the count. */
async function indexed(
  ctx: ConsoleContext,
  form: ZoneForm,
  values: Record<string, string>,
  run: () => Promise<ZoneIndexResult>,
): Promise<ConsoleAnswer> {
  let result: ZoneIndexResult;
  try {
    result = await run();
  } catch (err) {
    if (!isAppError(err)) throw err;
    const problem = { form, code: err.code, message: err.message, values, parameters: err.parameters ?? [] };
    return zonesPage(ctx, problem, httpStatusOf[err.code] ?? 400);
  }
  // As the API does: the apex the zone added gets its ownership check started.
  if (result.addedAsset !== undefined) ctx.deps.verification.checkInBackground(ctx.signedIn.team, result.addedAsset);
  return {
    redirect: withNotice(
      '/zones',
      result.addedAsset === undefined ? 'zone-indexed' : 'zone-indexed-apex',
      result.indexed,
    ),
  };
}

async function uploadHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const origin = ctx.form.get('origin') ?? '';
  const uploader = { team: ctx.signedIn.team, caller: consoleCaller(ctx.signedIn) };
  return indexed(ctx, 'file', { origin }, async () =>
    uploadZoneFile(
      ctx.deps,
      ctx.deps.zoneEngine,
      uploader,
      origin.trim() === '' ? undefined : origin,
      requiredUpload(fileBody(ctx, 'file', zoneFileLimit), 'the zone file'),
    ),
  );
}

async function transferHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const nameServer = ctx.form.get('nameServer') ?? '';
  const zone = ctx.form.get('zone') ?? '';
  const uploader = { team: ctx.signedIn.team, caller: consoleCaller(ctx.signedIn) };
  return indexed(ctx, 'transfer', { nameServer, zone }, async () =>
    transferAndIndex(ctx.deps, ctx.deps.zoneEngine, uploader, nameServer, zone),
  );
}

async function lookupHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  try {
    const body = requiredUpload(fileBody(ctx, 'file', zoneLookupLimit), 'the names, one per line,');
    const job = await createLookupJob(ctx.deps.store, ctx.signedIn.team, body);
    await enqueueZoneLookup(ctx.deps.jobs, job.uuid);
    return { redirect: `/zones/lookups/${job.uuid}` };
  } catch (err) {
    if (!isAppError(err)) throw err;
    const problem = { form: 'lookup' as const, code: err.code, message: err.message, values: {}, parameters: [] };
    return zonesPage(ctx, problem, httpStatusOf[err.code] ?? 400);
  }
}

/** The Zones pages: the three forms, and a lookup's progress (zones-lookup.page.ts). */
export const zoneRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/zones', access: 'read', handler: async (ctx) => zonesPage(ctx) },
  {
    method: 'POST',
    path: '/zones/file',
    access: 'scan',
    bodyLimit: zoneFileLimit + multipartSlack,
    handler: uploadHandler,
  },
  { method: 'POST', path: '/zones/transfer', access: 'scan', handler: transferHandler },
  {
    method: 'POST',
    path: '/zones/lookups',
    access: 'scan',
    bodyLimit: zoneLookupLimit + multipartSlack,
    handler: lookupHandler,
  },
  ...lookupRoutes,
];
