import type { AccountRepository } from './accounts/account.types.ts';
import type { TeamSsoRepository } from './accounts/sso.types.ts';
import type { EventRepository } from './events/event.types.ts';
import type { JiraRepository } from './integrations/jira.types.ts';
import type { WebhookRepository } from './webhooks/webhook.types.ts';
import type { ImportRepository } from './imports/import.types.ts';
import type { AssetRepository } from './assets/asset.types.ts';
import type { ConnectorRepository } from './connectors/connector.types.ts';
import type { AssetPatternRepository, GroupMemberRepository, GroupRepository } from './groups/group.types.ts';
import type { MemberRepository } from './members/member.types.ts';
import type { VulnerabilityRepository } from './vulnerabilities/vulnerability.repository.ts';
import type { LookupJobRepository } from './zones/zone-lookup.types.ts';
import type { ZoneRepository } from './zones/zone.types.ts';
import type { ScanProfileRepository, ScanRepository } from './scans/scan.types.ts';
import type { IpInventoryRepository } from './surface/ip-inventory.types.ts';
import type { PortInventoryRepository } from './surface/port-inventory.types.ts';
import type { TechnologyInventoryRepository } from './surface/technology-inventory.types.ts';
import type { SurfaceRunRepository } from './surface/surface-run.types.ts';
import type { SurfaceNameRepository } from './surface/surface-name.types.ts';
import type { BreachRepository } from './policies/breach.types.ts';
import type { OverviewRepository } from './overview/overview.types.ts';
import type { SurfaceRecordRepository } from './surface/surface-record.types.ts';
import type { Transactional } from './shared/transactional.ts';
import type { ApiKeyRepository, TeamRepository } from './teams/team.types.ts';

/**
 * The whole store, as the composition root, the faces (HTTP, CLI, jobs) and storage see it. No
 * area of the core imports this file: each area's services take the repositories they use (the
 * area's own store type, e.g. AssetStore in assets/asset.types.ts), and the whole store, holding
 * every repository, can be given to any of them. That keeps the areas free of a loop through one
 * aggregate that names them all.
 */

/** Every repository of the core, bound to one connection or transaction. */
export interface Repositories {
  teams: TeamRepository;
  keys: ApiKeyRepository;
  assets: AssetRepository;
  members: MemberRepository;
  groups: GroupRepository;
  groupMembers: GroupMemberRepository;
  assetPatterns: AssetPatternRepository;
  vulnerabilities: VulnerabilityRepository;
  zones: ZoneRepository;
  zoneLookups: LookupJobRepository;
  scanProfiles: ScanProfileRepository;
  scans: ScanRepository;
  /** The IP inventory of surface monitoring. */
  ipAddresses: IpInventoryRepository;
  /** The port inventory (one row per root asset, address and port). */
  ports: PortInventoryRepository;
  /** The technology inventory (one row per root asset, host, port, technology and version). */
  technologies: TechnologyInventoryRepository;
  surfaceRuns: SurfaceRunRepository;
  /** The discovered names surface monitoring lists as live (subdomain events). */
  surfaceNames: SurfaceNameRepository;
  /** Policy breaches (one per root asset, policy and host). */
  breaches: BreachRepository;
  /** The team overview's totals (findings per status, severity and day; monitored assets; open breaches). */
  overview: OverviewRepository;
  /** Single surface records with what links to them (the console's detail pages). */
  surfaceRecords: SurfaceRecordRepository;
  /** The v3 connectors and each team's external ID. */
  connectors: ConnectorRepository;
  /** The console's credentials, sessions, one-time links and sign-in failures. */
  accounts: AccountRepository;
  /** Each team's OpenID Connect provider for console single sign-on. */
  teamSso: TeamSsoRepository;
  /** Each team's append-only event log (core/events). */
  events: EventRepository;
  /** Each team's Jira connection and the Jira issue of each finding (core/integrations). */
  jira: JiraRepository;
  /** Webhooks of each team and their delivery log (core/webhooks). */
  webhooks: WebhookRepository;
  /** Imports of other tools' results and their uploaded files (core/imports). */
  imports: ImportRepository;
}

/**
 * The core's view of storage: repositories outside a transaction, and a way to run several
 * operations in one transaction (all or nothing).
 */
export interface Store extends Transactional<Repositories> {
  /** True when the store answers and every migration is applied. */
  isReady(): Promise<boolean>;
}
