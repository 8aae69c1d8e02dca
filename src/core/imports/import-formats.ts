import type { FindingInput, Severity } from '../vulnerabilities/vulnerability.types.ts';
import { countLines, hostOf, parseJson, parseXml, type XmlElement } from './import-text.ts';
import { ImportParseError, type ImportFormat, type ParsedHost, type ParsedImport } from './import.types.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** The module release date of imported definitions (imports carry no module version). */
const epoch = new Date(0);

function definition(title: string, description: string, risk: string, version: string): FindingInput['definition'] {
  return { title, description, risk, module_version: version, module_release: epoch, is_crowdsourced: false };
}

function cweOf(v: unknown): number | undefined {
  const m = /(\d+)/.exec(str(v) ?? '');
  const n = m === null ? NaN : Number(m[1]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function textDetail(topic: string, value: string | undefined): Array<{ topic: string; highlights: []; value: string }> {
  return value === undefined || value === '' ? [] : [{ topic, highlights: [], value }];
}

function severityOfScore(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'information';
}

/** Parses a whole uploaded file of the format; a malformed one fails with ImportParseError naming the line. */
export function parseImport(format: ImportFormat, text: string): ParsedImport {
  switch (format) {
    case 'nuclei':
      return parseNuclei(text);
    case 'zap':
      return parseZap(text);
    case 'sarif':
      return parseSarif(text);
    case 'nmap':
      return parseNmap(text);
  }
}

const nucleiSeverities: Record<string, Severity> = {
  info: 'information',
  unknown: 'information',
  low: 'low',
  medium: 'medium',
  high: 'high',
  critical: 'critical',
};

/** nuclei `-jsonl` output: one result event per line (template-id, info, host, matched-at …). */
export function parseNuclei(text: string): ParsedImport {
  const out: ParsedImport = { lines: countLines(text), results: 0, findings: [], hosts: [], hostless: 0 };
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    if (raw.trim() === '') return;
    const event = parseJson(raw, `nuclei line ${lineNo}`, index);
    if (!isObject(event)) throw new ImportParseError(`nuclei line ${lineNo} is not a JSON object`, lineNo);
    const templateId = str(event['template-id']);
    const info = event['info'];
    if (templateId === undefined || !isObject(info))
      throw new ImportParseError(`nuclei line ${lineNo}: a result needs "template-id" and "info"`, lineNo);
    out.results++;
    const matchedAt = str(event['matched-at']) ?? str(event['url']) ?? str(event['host']);
    const host = hostOf(event['matched-at']) ?? hostOf(event['host']) ?? hostOf(event['url']) ?? hostOf(event['ip']);
    if (host === undefined || matchedAt === undefined) {
      out.hostless++;
      return;
    }
    const classification = isObject(info['classification']) ? info['classification'] : {};
    const score = Number(classification['cvss-score']);
    const vector = str(classification['cvss-metrics']);
    const severity = nucleiSeverities[(str(info['severity']) ?? 'unknown').toLowerCase()] ?? 'information';
    const name = str(info['name']) ?? templateId;
    const description = str(info['description']) ?? name;
    const references = arr(info['reference'])
      .map(str)
      .filter((r): r is string => r !== undefined)
      .map((link) => ({ link, name: link, source: 'nuclei' }));
    const extracted = arr(event['extracted-results']).map(str).filter(Boolean).join('\n');
    const finding: FindingInput = {
      checkId: `nuclei:${templateId}${event['matcher-name'] === undefined ? '' : `:${str(event['matcher-name'])}`}`,
      location: matchedAt,
      host,
      title: name,
      severity,
      definition: definition(name, description, str(info['remediation']) ?? '', 'nuclei'),
      references,
      details: {
        text: [
          ...textDetail('Template', templateId),
          ...textDetail('Matched at', matchedAt),
          ...textDetail('Extracted results', extracted),
          ...textDetail('Request', str(event['request'])),
        ],
      },
    };
    const cwe = cweOf(arr(classification['cwe-id'])[0]);
    if (cwe !== undefined) finding.cwe = cwe;
    if (Number.isFinite(score) && score > 0 && vector !== undefined && vector.startsWith('CVSS:3')) {
      const cvss = { score, severity: severityOfScore(score), vector };
      finding.cvss = vector.startsWith('CVSS:3.0') ? { cvss_3_0: cvss } : { cvss_3_1: cvss };
      finding.severityV3 = cvss.severity;
    }
    out.findings.push({ host, finding });
  });
  return out;
}

const zapRisks: Severity[] = ['information', 'low', 'medium', 'high'];
const stripTags = (html: string | undefined) => (html ?? '').replace(/<[^>]*>/g, '').trim();

/** ZAP's traditional JSON report: site[].alerts[] with their instances. */
export function parseZap(text: string): ParsedImport {
  const doc = parseJson(text, 'The ZAP report');
  if (!isObject(doc) || !Array.isArray(doc['site']))
    throw new ImportParseError('The ZAP report has no "site" array (a traditional JSON report is expected)', 1);
  const out: ParsedImport = { lines: countLines(text), results: 0, findings: [], hosts: [], hostless: 0 };
  for (const site of doc['site']) {
    if (!isObject(site)) continue;
    for (const alert of arr(site['alerts'])) {
      if (!isObject(alert)) continue;
      const pluginId = str(alert['pluginid']) ?? str(alert['alertRef']) ?? 'unknown';
      const title = str(alert['alert']) ?? str(alert['name']) ?? `ZAP alert ${pluginId}`;
      const severity = zapRisks[Number(str(alert['riskcode']) ?? 0)] ?? 'information';
      const description = stripTags(str(alert['desc']));
      const references = stripTags(str(alert['reference']))
        .split(/\s+/)
        .filter((r) => /^https?:\/\//.test(r))
        .map((link) => ({ link, name: link, source: 'zap' }));
      const instances = arr(alert['instances']);
      const siteName = str(site['@name']);
      for (const instance of instances.length === 0 && siteName !== undefined ? [{ uri: siteName }] : instances) {
        if (!isObject(instance)) continue;
        out.results++;
        const uri = str(instance['uri']);
        const host = hostOf(uri) ?? hostOf(site['@host']);
        if (host === undefined || uri === undefined) {
          out.hostless++;
          continue;
        }
        const method = str(instance['method']) ?? 'GET';
        const param = str(instance['param']) ?? '';
        const finding: FindingInput = {
          checkId: `zap:${pluginId}`,
          location: param === '' ? uri : `${uri} ${method} ${param}`,
          host,
          title,
          severity,
          definition: definition(title, description || title, stripTags(str(alert['solution'])), 'zap'),
          references,
          request: { method, url: uri, body: '', headers: [] },
          details: {
            text: [
              ...textDetail('Parameter', param),
              ...textDetail('Attack', str(instance['attack'])),
              ...textDetail('Evidence', str(instance['evidence'])),
              ...textDetail('Other information', stripTags(str(instance['otherinfo']) ?? str(alert['otherinfo']))),
            ],
          },
        };
        const cwe = cweOf(alert['cweid']);
        if (cwe !== undefined) finding.cwe = cwe;
        out.findings.push({ host, finding });
      }
    }
  }
  return out;
}

const sarifLevels: Record<string, Severity> = {
  error: 'high',
  warning: 'medium',
  note: 'low',
  none: 'information',
};

function sarifText(message: unknown): string | undefined {
  return isObject(message) ? (str(message['text']) ?? str(message['markdown'])) : undefined;
}

/** SARIF 2.1.0: runs[].results[], with their rules (tool.driver.rules and the rules' properties). */
export function parseSarif(text: string): ParsedImport {
  const doc = parseJson(text, 'The SARIF log');
  if (!isObject(doc) || !Array.isArray(doc['runs'])) throw new ImportParseError('The SARIF log has no "runs" array', 1);
  const out: ParsedImport = { lines: countLines(text), results: 0, findings: [], hosts: [], hostless: 0 };
  for (const run of doc['runs']) {
    if (!isObject(run)) continue;
    const driver = isObject(run['tool']) && isObject(run['tool']['driver']) ? run['tool']['driver'] : {};
    const toolName = str(driver['name']) ?? 'sarif';
    const rules = arr(driver['rules']).filter(isObject);
    const ruleById = new Map(rules.map((r) => [str(r['id']) ?? '', r]));
    for (const result of arr(run['results'])) {
      if (!isObject(result)) continue;
      out.results++;
      const ruleIndex = typeof result['ruleIndex'] === 'number' ? result['ruleIndex'] : -1;
      const ruleId = str(result['ruleId']) ?? str(rules[ruleIndex]?.['id']) ?? 'unknown';
      const rule = ruleById.get(ruleId) ?? rules[ruleIndex] ?? {};
      const props = isObject(rule['properties']) ? rule['properties'] : {};
      const uris: string[] = [];
      for (const location of arr(result['locations'])) {
        const physical = isObject(location) ? location['physicalLocation'] : undefined;
        const artifact = isObject(physical) ? physical['artifactLocation'] : undefined;
        const uri = isObject(artifact) ? str(artifact['uri']) : undefined;
        if (uri !== undefined) uris.push(uri);
      }
      const webRequest = isObject(result['webRequest']) ? str(result['webRequest']['target']) : undefined;
      if (webRequest !== undefined) uris.push(webRequest);
      const uri = uris.find((u) => hostOf(u) !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(u));
      const host = uri === undefined ? undefined : hostOf(uri);
      if (host === undefined || uri === undefined) {
        out.hostless++;
        continue;
      }
      const securitySeverity = Number(str(props['security-severity']));
      const level =
        str(result['level']) ??
        str(isObject(rule['defaultConfiguration']) ? rule['defaultConfiguration']['level'] : undefined) ??
        'warning';
      const severity = Number.isFinite(securitySeverity)
        ? severityOfScore(securitySeverity)
        : (sarifLevels[level] ?? 'medium');
      const title = sarifText(rule['shortDescription']) ?? str(rule['name']) ?? sarifText(result['message']) ?? ruleId;
      const description = sarifText(rule['fullDescription']) ?? sarifText(result['message']) ?? title;
      const helpUri = str(rule['helpUri']);
      const finding: FindingInput = {
        checkId: `sarif:${toolName}:${ruleId}`,
        location: uri,
        host,
        title,
        severity,
        definition: definition(title, description, sarifText(rule['help']) ?? '', toolName),
        references: helpUri === undefined ? [] : [{ link: helpUri, name: helpUri, source: toolName }],
        details: { text: [...textDetail('Message', sarifText(result['message']))] },
      };
      const tags = arr(props['tags']).map(str);
      const cwe = cweOf(str(props['cwe']) ?? tags.find((t) => /^(external\/)?cwe[-/]/i.test(t ?? '')));
      if (cwe !== undefined) finding.cwe = cwe;
      out.findings.push({ host, finding });
    }
  }
  return out;
}

const child = (e: XmlElement, name: string) => e.children.find((c) => c.name === name);
const children = (e: XmlElement | undefined, name: string) =>
  e === undefined ? [] : e.children.filter((c) => c.name === name);

/** nmap `-oX` output: hosts, their addresses and names, and their TCP ports with state and service. */
export function parseNmap(text: string): ParsedImport {
  const root = parseXml(text);
  if (root.name !== 'nmaprun')
    throw new ImportParseError(`The root element is <${root.name}>, not <nmaprun>`, root.line);
  const out: ParsedImport = { lines: countLines(text), results: 0, findings: [], hosts: [], hostless: 0 };
  for (const host of children(root, 'host')) {
    const address = children(host, 'address').find((a) => a.attrs['addrtype'] !== 'mac')?.attrs['addr'];
    if (address === undefined) throw new ImportParseError(`<host> of line ${host.line} has no IP address`, host.line);
    const names = children(child(host, 'hostnames'), 'hostname')
      .sort((a, b) => (a.attrs['type'] === 'user' ? -1 : 0) - (b.attrs['type'] === 'user' ? -1 : 0))
      .map((h) => (h.attrs['name'] ?? '').toLowerCase().replace(/\.$/, ''))
      .filter((n) => n !== '');
    const parsed: ParsedHost = { address: address.toLowerCase(), names, open: [], closed: [] };
    for (const port of children(child(host, 'ports'), 'port')) {
      out.results++;
      const number = Number(port.attrs['portid']);
      if (!Number.isInteger(number) || number < 0 || number > 65535)
        throw new ImportParseError(`<port> of line ${port.line} has no valid portid`, port.line);
      if ((port.attrs['protocol'] ?? 'tcp') !== 'tcp') continue;
      const state = child(port, 'state')?.attrs['state'];
      if (state === 'closed') parsed.closed.push(number);
      if (state !== 'open') continue;
      const service = child(port, 'service')?.attrs ?? {};
      const name = (service['name'] ?? 'unknown').toLowerCase();
      const isTls = service['tunnel'] === 'ssl' || name === 'https';
      const guess = {
        name: isTls && name === 'http' ? 'https' : name,
        isTls,
        isHttp: name === 'http' || name === 'https' || name.startsWith('http-'),
        ...(service['product'] === undefined ? {} : { product: service['product'] }),
        ...(service['version'] === undefined ? {} : { version: service['version'] }),
      };
      parsed.open.push({ port: number, service: guess });
    }
    out.hosts.push(parsed);
  }
  return out;
}
