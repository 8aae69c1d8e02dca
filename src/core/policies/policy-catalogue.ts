/**
 * The policies: rules over a root asset's inventory (its open ports and the technologies found on
 * them) that say which of its hosts are in breach. Pure functions of what they are given: the core
 * reads the inventory, evaluates, and opens or closes the breaches (core/policies).
 *
 * A port rule holds when the port scanner named the service (`ssh`, `mysql` …) as one the rule
 * names, or, when it could not name one (`unknown`, or only `tls`), when the port is one the
 * service usually listens on. A service named otherwise (HTTP on 3306) does not breach a database
 * rule: the scanner's identification wins over the port number.
 */

/** Severity as v3 writes it (the spec's sample is `INFO`). */
export type PolicySeverity = 'INFO' | 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';

/** Every severity, lowest first. */
export const policySeverities: readonly PolicySeverity[] = ['INFO', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

/** An open port of the inventory, as a policy reads it. */
export interface PolicyPort {
  ipAddress: string;
  port: number;
  /** The host name the inventory gives the port (a name of the asset that resolved to the address). */
  domainName: string;
  /** The scanner's service name, lower case (`unknown` when it could not tell). */
  service: string;
  isTls: boolean;
  isHttp: boolean;
}

/** An active technology of the inventory, as a policy reads it. */
export interface PolicyTechnology {
  domainName: string;
  port: number;
  name: string;
  version: string | null;
  categories: readonly string[];
}

/** What the policies read of one root asset. */
export interface PolicyInput {
  ports: readonly PolicyPort[];
  technologies: readonly PolicyTechnology[];
}

/** One policy of the catalogue. */
export interface Policy {
  /** Stable identifier (`policy_id` on the wire). */
  id: string;
  /** `policy_name` on the wire. */
  name: string;
  severity: PolicySeverity;
  /** What breaches it, for the documentation. */
  description: string;
  /** The host names of the input in breach, each with what breaches it (a short text). */
  evaluate(input: PolicyInput): Map<string, string>;
}

/** One (policy, host) in breach. */
export interface PolicyBreachObservation {
  policyId: string;
  /** The host name in breach (`asset_name` on the wire). */
  assetName: string;
  /** What breaches it: the first port or technology found, for logs and tests. */
  evidence: string;
}

/** The hosts with an open port that `matches`, each with the first such port as evidence. */
function portsMatching(matches: (port: PolicyPort) => boolean): Policy['evaluate'] {
  return (input) => {
    const found = new Map<string, string>();
    for (const port of input.ports) {
      if (found.has(port.domainName) || !matches(port)) continue;
      found.set(port.domainName, `${port.ipAddress} port ${port.port} (${port.service})`);
    }
    return found;
  };
}

/** A port rule: the services it names and the ports they usually listen on. */
function portRule(
  services: readonly string[],
  ports: readonly number[],
  accept: (port: PolicyPort) => boolean = () => true,
): Policy['evaluate'] {
  const named = new Set(services);
  const usual = new Set(ports);
  return portsMatching((port) => {
    const isUnnamed = port.service === 'unknown' || port.service === 'tls' || port.service === '';
    return (named.has(port.service) || (isUnnamed && usual.has(port.port))) && accept(port);
  });
}

/** A technology rule: technologies of any of these categories, optionally only with a version. */
function technologyRule(
  categories: readonly string[],
  accept: (technology: PolicyTechnology) => boolean = () => true,
): Policy['evaluate'] {
  const wanted = new Set(categories.map((c) => c.toLowerCase()));
  return (input) => {
    const found = new Map<string, string>();
    for (const technology of input.technologies) {
      if (
        !technology.categories.some((c) => wanted.has(c.toLowerCase())) ||
        !accept(technology) ||
        found.has(technology.domainName)
      )
        continue;
      const version = technology.version === null ? '' : ` ${technology.version}`;
      found.set(technology.domainName, `${technology.name}${version} on port ${technology.port}`);
    }
    return found;
  };
}

/** The catalogue, in the order the documentation lists it (docs/policies.md). */
export const policies: readonly Policy[] = [
  {
    id: 'remote-desktop-exposed',
    name: 'Remote desktop exposed',
    severity: 'HIGH',
    description: 'RDP (3389) or VNC (5900-5903) answers on a host.',
    evaluate: portRule(['rdp', 'ms-wbt-server', 'vnc'], [3389, 5900, 5901, 5902, 5903]),
  },
  {
    id: 'cleartext-remote-shell-exposed',
    name: 'Clear-text remote shell exposed',
    severity: 'HIGH',
    description: 'Telnet (23) or the r-services rexec, rlogin and rsh (512-514) answer on a host.',
    evaluate: portRule(['telnet', 'rexec', 'rlogin', 'rsh'], [23, 512, 513, 514]),
  },
  {
    id: 'database-exposed',
    name: 'Database exposed',
    severity: 'HIGH',
    description:
      'A database or cache answers on a host: MySQL or MariaDB (3306), PostgreSQL (5432), Microsoft SQL Server (1433), Oracle (1521), ' +
      'Redis (6379), MongoDB (27017-27019), Elasticsearch (9200, 9300), CouchDB (5984), Cassandra (9042), Memcached (11211), InfluxDB (8086).',
    evaluate: portRule(
      [
        'mysql',
        'postgresql',
        'ms-sql-s',
        'oracle',
        'redis',
        'mongodb',
        'elasticsearch',
        'couchdb',
        'cassandra',
        'memcached',
        'influxdb',
      ],
      [3306, 5432, 1433, 1521, 6379, 27017, 27018, 27019, 9200, 9300, 5984, 9042, 11211, 8086],
    ),
  },
  {
    id: 'file-sharing-exposed',
    name: 'File sharing exposed',
    severity: 'HIGH',
    description: 'SMB (139, 445), NFS (2049) or rsync (873) answers on a host.',
    evaluate: portRule(['smb', 'microsoft-ds', 'netbios-ssn', 'nfs', 'rsync'], [139, 445, 2049, 873]),
  },
  {
    id: 'cleartext-file-transfer-exposed',
    name: 'Clear-text file transfer exposed',
    severity: 'MEDIUM',
    description: 'FTP without TLS answers on a host (21, or FTP identified on another port).',
    evaluate: portRule(['ftp'], [21], (port) => !port.isTls),
  },
  {
    id: 'administration-interface-exposed',
    name: 'Administration interface exposed',
    severity: 'MEDIUM',
    description:
      'Fingerprinting found a database manager, hosting panel, remote-access tool, CI server, control system or network device interface on a host ' +
      '(Wappalyzer categories Database managers, Hosting panels, Remote access, CI, Control systems, Network devices, Network storage).',
    evaluate: technologyRule([
      'Database managers',
      'Hosting panels',
      'Remote access',
      'CI',
      'Control systems',
      'Network devices',
      'Network storage',
    ]),
  },
  {
    id: 'ssh-exposed',
    name: 'SSH exposed',
    severity: 'LOW',
    description: 'SSH answers on a host (22, or SSH identified on another port).',
    evaluate: portRule(['ssh'], [22]),
  },
  {
    id: 'software-version-disclosed',
    name: 'Server software version disclosed',
    severity: 'INFO',
    description:
      'Fingerprinting read the version of server-side software on a host (Wappalyzer categories Web servers, Reverse proxies, Web server extensions, ' +
      'Programming languages, Operating systems), which tells an attacker which published flaws to try.',
    evaluate: technologyRule(
      ['Web servers', 'Reverse proxies', 'Web server extensions', 'Programming languages', 'Operating systems'],
      (t) => t.version !== null && t.version !== '',
    ),
  },
  {
    id: 'cleartext-web-service',
    name: 'Web service without TLS',
    severity: 'INFO',
    description:
      'A port answers HTTP without TLS on a host (a redirect to HTTPS still counts: the first request travels in clear text).',
    evaluate: portsMatching((port) => port.isHttp && !port.isTls),
  },
];

/** The policy of an id. */
export const policyById: ReadonlyMap<string, Policy> = new Map(policies.map((p) => [p.id, p]));

/** Every (policy, host) the input breaches, in catalogue order, then host name order. */
export function evaluatePolicies(input: PolicyInput): PolicyBreachObservation[] {
  const out: PolicyBreachObservation[] = [];
  for (const policy of policies) {
    const found = policy.evaluate(input);
    for (const assetName of [...found.keys()].sort())
      out.push({ policyId: policy.id, assetName, evidence: found.get(assetName)! });
  }
  return out;
}
