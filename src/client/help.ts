/** The usage of every command and subcommand (`--help` prints it; a usage error ends with it). */

const connection = `Connection (any command): --server URL  --key KEY (v2)  --v3-key KEY  --timeout SECONDS (default 30)
Environment: PERIMETER_SERVER, PERIMETER_API_KEY, PERIMETER_API_SECRET, PERIMETER_V3_API_KEY override the
stored login (for CI pipelines). Exit codes: 0 ok, 1 --fail-on gate, 2 usage error, 3 API or network error,
4 scan or import did not complete (docs/cli.md).`;

export const help = {
  top: `usage: perimeter <command> [options]

Client commands (talk to a server over its HTTP API):
  login [--server URL] [--key KEY] [--v3-key KEY]   store the server and keys (~/.config/perimeter)
  logout                                            forget them
  assets list|add NAME|rm NAME-or-token             root assets of the team
  scan start PROFILE [--wait] [--fail-on SEVERITY]  start a scan (and wait for its verdict)
  scan stop PROFILE                                 stop a scan
  scan status PROFILE                               the latest scan of a profile
  findings list [filters] [--format table|json|csv] vulnerabilities of the team
  findings export --format csv|ndjson|sarif [-o FILE]   stream every finding (v3 key)
  import nuclei|zap|sarif|nmap FILE [--wait]        import another tool's results (v3 key)

Server commands (run where the store is):
  serve [--roles api,worker,scheduler] [--port N] [--data-dir DIR] [--database-url URL] …
  migrate
  admin …   (perimeter admin --help)

  --version   print the version
  --help      this text; \`perimeter <command> --help\` for one command

${connection}`,

  login: `usage: perimeter login [--server URL] [--key KEY] [--v3-key KEY] [--secret SECRET]

Asks for what is not given (the server, then the v2 key; the v3 key is optional, Enter skips it),
checks each key with one call to the API, and writes them to $XDG_CONFIG_HOME/perimeter/config.json
(else ~/.config/perimeter/config.json), readable by you alone (0600, folder 0700).
  --key KEY        v2 key: assets, scans, findings
  --v3-key KEY     v3 key: findings export, imports
  --secret SECRET  signing secret of the v2 key, when it was created with one`,

  logout: `usage: perimeter logout

Removes the stored server and keys (the config file written by perimeter login).`,

  assets: `usage: perimeter assets list [--format table|json|csv]
       perimeter assets add NAME
       perimeter assets rm NAME-or-token`,
  'assets list': `usage: perimeter assets list [--format table|json|csv]

Every root asset of the team (all pages): token, name, status, monitored, created.`,
  'assets add': `usage: perimeter assets add NAME

Adds a root asset (a domain or an IP address) and prints its token.`,
  'assets rm': `usage: perimeter assets rm NAME-or-token

Deletes a root asset, named by its name or its token.`,

  scan: `usage: perimeter scan start PROFILE [--wait] [--fail-on SEVERITY] [--interval SECONDS]
       perimeter scan stop PROFILE
       perimeter scan status PROFILE [--format table|json]
PROFILE: a scan profile's token, name or endpoint.`,
  'scan start': `usage: perimeter scan start PROFILE [--wait] [--fail-on SEVERITY] [--interval SECONDS]

Starts a scan of the profile (token, name or endpoint). With --wait, follows it to its end: a progress
bar with percentage and time left on a terminal, a line per change otherwise; then counts the findings
of the scan (new, active, regression) by severity and exits with:
  without --fail-on: 0 none or information, 10 low, 11 medium, 12 high, 13 critical
  with --fail-on SEVERITY (low|medium|high|critical): 1 when a finding is at or above it, else 0
  4 when the scan did not complete (stopped, unable to resolve or to complete)
  --interval SECONDS   time between two reads of the status (default 2)`,
  'scan stop': `usage: perimeter scan stop PROFILE

Asks the running scan of the profile (token, name or endpoint) to stop.`,
  'scan status': `usage: perimeter scan status PROFILE [--format table|json]

The latest scan of the profile: status, progress, start and end.`,

  findings: `usage: perimeter findings list [filters] [--format table|json|csv] [--limit N]
       perimeter findings export --format csv|ndjson|sarif [filters] [-o FILE]`,
  'findings list': `usage: perimeter findings list [filters] [--format table|json|csv] [--limit N]

Vulnerabilities of the team, every page (or the first N with --limit).
Filters (repeatable, or comma-separated):
  --severity information|low|medium|high|critical   --status new|active|regression|patched|accepted_risk|false_positive
  --host NAME   --asset TOKEN   --profile TOKEN   --title TEXT   --source application-scanning|surface-monitoring
  --since TIME  (first detected at or after TIME, ISO 8601 or Unix seconds)
--format table (default), json (an array) or csv (a header row, then one row per finding).`,
  'findings export': `usage: perimeter findings export --format csv|ndjson|sarif [filters] [-o FILE]

Streams GET /rest/v3/exports/vulnerabilities to FILE (or standard output), any size, in flat memory.
Takes the filters of findings list. Needs a v3 key (--v3-key, PERIMETER_V3_API_KEY or perimeter login).`,

  import: `usage: perimeter import nuclei|zap|sarif|nmap FILE [--wait]

Uploads FILE (nuclei -jsonl output, a ZAP JSON report, a SARIF 2.1.0 log, nmap -oX XML) to
POST /rest/v3/imports and prints the import's id. With --wait, polls it until it is done and prints its
counts (exit 4 when it failed, with the error naming the line). Needs a v3 key.`,
} as const;

export type HelpTopic = keyof typeof help;

/** The usage of a topic with the connection options. */
export function helpText(topic: HelpTopic): string {
  return topic === 'top' ? help.top : `${help[topic]}\n\n${connection}`;
}
