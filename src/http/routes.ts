import type { RouteDef } from './route.ts';
import { assetPatternRoutes } from './v2/asset-patterns.routes.ts';
import { assetRoutes } from './v2/assets.routes.ts';
import { groupMemberRoutes } from './v2/group-members.routes.ts';
import { groupRoutes } from './v2/groups.routes.ts';
import { legacyDomainRoutes } from './v2/legacy-domains.routes.ts';
import { legacyReportRoutes } from './v2/legacy-reports.routes.ts';
import { memberRoutes } from './v2/members.routes.ts';
import { monitoringRoutes } from './v2/monitoring.routes.ts';
import { profileRoutes } from './v2/profiles.routes.ts';
import { scanRoutes } from './v2/scans.routes.ts';
import { vulnerabilityRoutes } from './v2/vulnerabilities.routes.ts';
import { zoneRoutes } from './v2/zones.routes.ts';
import { breachRoutes } from './v3/breaches.routes.ts';
import { connectorRoutes } from './v3/connectors.routes.ts';
import { eventRoutes } from './v3/events.routes.ts';
import { exportRoutes } from './v3/exports.routes.ts';
import { webhookRoutes } from './v3/webhooks.routes.ts';
import { jiraRoutes } from './v3/jira.routes.ts';
import { ipRoutes } from './v3/ips.routes.ts';
import { portRoutes } from './v3/ports.routes.ts';
import { reportRoutes } from './v3/reports.routes.ts';
import { technologyRoutes } from './v3/technologies.routes.ts';
import { importRoutes } from './v3/imports.routes.ts';

/** Every operation of both surfaces, in documentation order. */
export function allRoutes(): RouteDef[] {
  return [
    ...assetRoutes,
    ...monitoringRoutes,
    ...profileRoutes,
    ...scanRoutes,
    ...zoneRoutes,
    ...vulnerabilityRoutes,
    ...memberRoutes,
    ...groupRoutes,
    ...groupMemberRoutes,
    ...assetPatternRoutes,
    ...legacyDomainRoutes,
    ...legacyReportRoutes,
    ...ipRoutes,
    ...technologyRoutes,
    ...portRoutes,
    ...breachRoutes,
    ...connectorRoutes,
    ...eventRoutes,
    ...exportRoutes,
    ...webhookRoutes,
    ...jiraRoutes,
    ...importRoutes,
    ...reportRoutes,
  ];
}
