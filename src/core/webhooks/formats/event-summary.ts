import type { FormatContext, FormatEvent } from './format.types.ts';
import { severities, type Severity } from '../../vulnerabilities/vulnerability.types.ts';

/**
 * What the human formats (Slack, Teams, e-mail) say about an event: one sentence, a few
 * labelled facts and the page to open. One piece of code for the three formats, so that a
 * Slack message, a Teams card and an e-mail say the same thing about the same event.
 */

/** One labelled fact of a summary ("Severity: high"). */
export interface SummaryFact {
  label: string;
  value: string;
}

/** The page a message links to. */
export interface SummaryLink {
  /** The button text ("Open the vulnerability"). */
  label: string;
  url: string;
}

/** An event as a person reads it. */
export interface EventSummary {
  /** One sentence: "New high vulnerability: SQL injection on shop.example.com". */
  title: string;
  facts: SummaryFact[];
  link: SummaryLink | undefined;
  /** The severity of a finding or breach event, else undefined (digests order by it). */
  severity: Severity | undefined;
}

type Data = Record<string, unknown>;
type Part = Omit<EventSummary, 'link' | 'severity'>;
type Describe = (data: Data) => Part;
type Link = (data: Data, base: string) => SummaryLink | undefined;

/** A field as text: strings as they are, numbers and booleans printed, anything else undefined. */
export function fieldText(data: Data, key: string): string | undefined {
  const value = data[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function text(data: Data, key: string, fallback = '?'): string {
  const value = fieldText(data, key);
  return value === undefined || value === '' ? fallback : value;
}

/** The facts whose value is present, in order. */
function facts(data: Data, pairs: readonly (readonly [string, string])[]): SummaryFact[] {
  const out: SummaryFact[] = [];
  for (const [label, key] of pairs) {
    const value = fieldText(data, key);
    if (value !== undefined && value !== '') out.push({ label, value });
  }
  return out;
}

/** "accepted_risk" → "accepted risk". */
function words(value: string): string {
  return value.replace(/_/g, ' ');
}

function countOf(data: Data, key: string, one: string, many: string): string {
  const n = fieldText(data, key) ?? '0';
  return `${n} ${n === '1' ? one : many}`;
}

const scanFacts = [
  ['Asset', 'asset_name'],
  ['Started', 'started_at'],
] as const;

const vulnerabilityFacts = [
  ['Severity', 'severity'],
  ['Status', 'status'],
  ['Host', 'host'],
  ['URL', 'url'],
  ['Asset', 'asset_name'],
  ['Source', 'scan_source'],
  ['Fingerprint', 'fingerprint'],
] as const;

const portFacts = [
  ['Host', 'host'],
  ['Address', 'ip_address'],
  ['Port', 'port'],
  ['Protocol', 'protocol'],
  ['Service', 'service'],
  ['Asset', 'asset_name'],
] as const;

const breachFacts = [
  ['Policy', 'policy_name'],
  ['Severity', 'severity'],
  ['Host', 'host'],
  ['Asset', 'asset_name'],
] as const;

function vulnerabilityTitle(prefix: string, d: Data): string {
  return `${prefix} ${text(d, 'severity')} vulnerability: ${text(d, 'title')} on ${text(d, 'host')}`;
}

function statusChanged(d: Data): Part {
  const mark = words(text(d, 'mark'));
  const what = `${text(d, 'title')} on ${text(d, 'host')}`;
  const title = fieldText(d, 'marked') === 'false' ? `Mark "${mark}" lifted from ${what}` : `${what} marked as ${mark}`;
  const f = facts(d, vulnerabilityFacts);
  f.splice(2, 0, ...facts(d, [['Previous status', 'previous_status']]));
  return { title, facts: f };
}

function scanCompleted(d: Data): Part {
  const verb = fieldText(d, 'stopped') === 'true' ? 'stopped' : 'completed';
  return {
    title: `Scan ${verb} on ${text(d, 'asset_name')}: ${countOf(d, 'findings', 'finding', 'findings')}, ${text(d, 'new', '0')} new`,
    facts: facts(d, [
      ...scanFacts,
      ['Completed', 'completed_at'],
      ['Findings', 'findings'],
      ['New', 'new'],
      ['Regressions', 'regressions'],
      ['Patched', 'patched'],
    ]),
  };
}

function technology(d: Data): Part {
  const version = fieldText(d, 'version');
  const name = version === undefined ? text(d, 'technology') : `${text(d, 'technology')} ${version}`;
  return {
    title: `Technology ${name} found on ${text(d, 'host')}:${text(d, 'port')}`,
    facts: facts(d, [
      ['Technology', 'technology'],
      ['Version', 'version'],
      ['Host', 'host'],
      ['Port', 'port'],
      ['Asset', 'asset_name'],
    ]),
  };
}

function connectorRun(d: Data): Part {
  const error = fieldText(d, 'error');
  const title = `Connector ${text(d, 'name')} run finished: ${text(d, 'status')}${error === undefined ? '' : ` (${error})`}`;
  return {
    title,
    facts: facts(d, [
      ['Connector', 'name'],
      ['Provider', 'provider'],
      ['Status', 'status'],
      ['Error', 'error'],
      ['Completed', 'completed_at'],
    ]),
  };
}

const assetFacts = [
  ['Asset', 'asset_name'],
  ['Type', 'type'],
] as const;

const describers: Record<string, Describe> = {
  'scan.started': (d) => ({ title: `Scan started on ${text(d, 'asset_name')}`, facts: facts(d, scanFacts) }),
  'scan.completed': scanCompleted,
  'scan.failed': (d) => ({
    title: `Scan failed on ${text(d, 'asset_name')}: ${text(d, 'error')}`,
    facts: facts(d, [...scanFacts, ['Failed', 'failed_at'], ['Error', 'error']]),
  }),
  'vulnerability.new': (d) => ({ title: vulnerabilityTitle('New', d), facts: facts(d, vulnerabilityFacts) }),
  'vulnerability.regression': (d) => ({
    title: vulnerabilityTitle('Regression of', d),
    facts: facts(d, vulnerabilityFacts),
  }),
  'vulnerability.patched': (d) => ({ title: vulnerabilityTitle('Patched', d), facts: facts(d, vulnerabilityFacts) }),
  'vulnerability.status_changed': statusChanged,
  'asset.added': (d) => ({
    title: `Asset added: ${text(d, 'asset_name')} (${text(d, 'type')})`,
    facts: facts(d, assetFacts),
  }),
  'asset.removed': (d) => ({
    title: `Asset removed: ${text(d, 'asset_name')} (${text(d, 'type')})`,
    facts: facts(d, assetFacts),
  }),
  'asset.verified': (d) => ({
    title: `Asset verified: ${text(d, 'asset_name')} (${text(d, 'type')})`,
    facts: facts(d, assetFacts),
  }),
  'subdomain.discovered': (d) => ({
    title: `New subdomain ${text(d, 'name')} under ${text(d, 'asset_name')}`,
    facts: facts(d, [
      ['Subdomain', 'name'],
      ['Asset', 'asset_name'],
    ]),
  }),
  'subdomain.disappeared': (d) => ({
    title: `Subdomain ${text(d, 'name')} no longer found under ${text(d, 'asset_name')}`,
    facts: facts(d, [
      ['Subdomain', 'name'],
      ['Asset', 'asset_name'],
    ]),
  }),
  'port.opened': (d) => ({ title: portTitle('opened', d), facts: facts(d, portFacts) }),
  'port.closed': (d) => ({ title: portTitle('closed', d), facts: facts(d, portFacts) }),
  'technology.discovered': technology,
  'breach.opened': (d) => ({
    title: `Policy breached: ${text(d, 'policy_name')} on ${text(d, 'host')}`,
    facts: facts(d, breachFacts),
  }),
  'breach.closed': (d) => ({
    title: `Breach resolved: ${text(d, 'policy_name')} on ${text(d, 'host')}`,
    facts: facts(d, breachFacts),
  }),
  'zone_lookup.finished': (d) => ({
    title: `Zone lookup finished: ${text(d, 'found', '0')} of ${countOf(d, 'names', 'name', 'names')} resolved`,
    facts: facts(d, [
      ['Names', 'names'],
      ['Resolved', 'found'],
      ['Finished', 'finished_at'],
    ]),
  }),
  'connector.run_finished': connectorRun,
  'webhook.disabled': (d) => ({
    title: `Webhook ${text(d, 'name')} disabled: ${text(d, 'reason')}`,
    facts: facts(d, [
      ['Webhook', 'name'],
      ['Reason', 'reason'],
      ['Failing since', 'failing_since'],
    ]),
  }),
  'webhook.test': (d) => ({
    title: `Test event for webhook ${text(d, 'name')}`,
    facts: facts(d, [
      ['Webhook', 'name'],
      ['Message', 'message'],
    ]),
  }),
};

function portTitle(verb: string, d: Data): string {
  return `Port ${text(d, 'port')}/${text(d, 'protocol')} ${verb} on ${text(d, 'host')} (${text(d, 'ip_address')})`;
}

/** A kind outside the catalogue (a newer server, a test): its type and every scalar field. */
function generic(type: string, d: Data): Part {
  const f: SummaryFact[] = [];
  for (const key of Object.keys(d)) {
    const value = fieldText(d, key);
    if (value !== undefined && value !== '') f.push({ label: key, value });
  }
  return { title: `Event ${type}`, facts: f };
}

/** An http(s) URL as given, else undefined (a link never carries another scheme). */
function httpUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function consolePage(base: string, path: string, label: string): SummaryLink | undefined {
  const url = httpUrl(`${base}${path}`);
  return url === undefined ? undefined : { label, url };
}

function tokenPage(prefix: string, key: string, label: string): Link {
  return (d, base) => {
    const token = fieldText(d, key);
    return token === undefined || token === ''
      ? undefined
      : consolePage(base, `${prefix}/${encodeURIComponent(token)}`, label);
  };
}

const vulnerabilityLink: Link = (d, base) => {
  const page = httpUrl(fieldText(d, 'details_page'));
  if (page !== undefined) return { label: 'Open the vulnerability', url: page };
  return tokenPage('/vulnerabilities', 'vulnerability_uuid', 'Open the vulnerability')(d, base);
};

const assetLink = tokenPage('/assets', 'asset_token', 'Open the asset');
const scanLink = tokenPage('/scans', 'scan_profile_token', 'Open the scan');

const links: Record<string, Link> = {
  'scan.started': scanLink,
  'scan.completed': scanLink,
  'scan.failed': scanLink,
  'vulnerability.new': vulnerabilityLink,
  'vulnerability.regression': vulnerabilityLink,
  'vulnerability.patched': vulnerabilityLink,
  'vulnerability.status_changed': vulnerabilityLink,
  'asset.added': assetLink,
  'asset.removed': (_d, base) => consolePage(base, '/assets', 'Open the assets'),
  'asset.verified': assetLink,
  'subdomain.discovered': assetLink,
  'subdomain.disappeared': assetLink,
  'port.opened': assetLink,
  'port.closed': assetLink,
  'technology.discovered': assetLink,
  'breach.opened': tokenPage('/surface/breaches', 'breach_id', 'Open the breach'),
  'breach.closed': tokenPage('/surface/breaches', 'breach_id', 'Open the breach'),
  'zone_lookup.finished': (_d, base) => consolePage(base, '/zones', 'Open the zones'),
  'connector.run_finished': (_d, base) => consolePage(base, '/team/connectors', 'Open the connectors'),
};

function severityOf(d: Data): Severity | undefined {
  const value = fieldText(d, 'severity');
  return severities.find((s) => s === value);
}

/** Rank of a severity for ordering: critical 5 … information 1, none 0. */
export function severityRank(severity: Severity | undefined): number {
  return severity === undefined ? 0 : severities.indexOf(severity) + 1;
}

/** The sentence, facts, link and severity of an event, as the three human formats show them. */
export function summarizeEvent(event: FormatEvent, context: FormatContext): EventSummary {
  const data = event.data;
  const describe = describers[event.type];
  const part = describe === undefined ? generic(event.type, data) : describe(data);
  const link = links[event.type]?.(data, context.consoleBase.replace(/\/+$/, ''));
  return { ...part, link, severity: severityOf(data) };
}

const kindNames: Record<string, readonly [string, string]> = {
  'scan.started': ['scan started', 'scans started'],
  'scan.completed': ['scan completed', 'scans completed'],
  'scan.failed': ['scan failed', 'scans failed'],
  'vulnerability.new': ['new vulnerability', 'new vulnerabilities'],
  'vulnerability.regression': ['regression', 'regressions'],
  'vulnerability.patched': ['vulnerability patched', 'vulnerabilities patched'],
  'vulnerability.status_changed': ['vulnerability marked', 'vulnerabilities marked'],
  'asset.added': ['asset added', 'assets added'],
  'asset.removed': ['asset removed', 'assets removed'],
  'asset.verified': ['asset verified', 'assets verified'],
  'subdomain.discovered': ['new subdomain', 'new subdomains'],
  'subdomain.disappeared': ['subdomain gone', 'subdomains gone'],
  'port.opened': ['port opened', 'ports opened'],
  'port.closed': ['port closed', 'ports closed'],
  'technology.discovered': ['new technology', 'new technologies'],
  'breach.opened': ['policy breach', 'policy breaches'],
  'breach.closed': ['breach resolved', 'breaches resolved'],
  'zone_lookup.finished': ['zone lookup finished', 'zone lookups finished'],
  'connector.run_finished': ['connector run', 'connector runs'],
  'webhook.disabled': ['webhook disabled', 'webhooks disabled'],
  'webhook.test': ['test event', 'test events'],
};

/** "3 new vulnerabilities", "1 port opened": a count of events of one kind, in words. */
export function kindCount(kind: string, count: number): string {
  const names = kindNames[kind] ?? [`${kind} event`, `${kind} events`];
  return `${count} ${count === 1 ? names[0] : names[1]}`;
}

/** Cuts text to at most `max` characters, ending with "…" when it was cut. */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - 1);
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // never split a surrogate pair
  return `${value.slice(0, end)}…`;
}

/** The footer line of every format: team, webhook and the event's time. */
export function contextLine(event: FormatEvent, context: FormatContext): string {
  return `Team ${context.teamName} · webhook ${context.webhookName} · ${event.timestamp}`;
}
