/**
 * Endpoint groups: the unit of access control. A plan (subscription level) decides which groups
 * exist for a team; a key's permissions may narrow that further. Calling an endpoint of a group
 * the team or key lacks is error 1009.
 */
export const endpointGroups = [
  'assets',
  'profiles',
  'scans',
  'zones',
  'vulnerabilities',
  'members',
  'groups',
  'inventory',
  'connectors',
  'events',
  'exports',
  'imports',
] as const;

/** One endpoint group. */
export type EndpointGroup = (typeof endpointGroups)[number];

/** A subscription level: its capacity limits and the endpoint groups it may call. */
export interface Plan {
  name: PlanName;
  /** Domains with surface monitoring on at once (2424 past it). */
  monitoredDomains: number;
  /** Application scan profiles (2618 past it). */
  scanProfiles: number;
  groups: readonly EndpointGroup[];
}

/** The plans, from the smallest up. */
export const plans = {
  starter: {
    name: 'starter',
    monitoredDomains: 3,
    scanProfiles: 3,
    groups: ['assets', 'profiles', 'scans', 'zones', 'vulnerabilities', 'members', 'events', 'exports', 'imports'],
  },
  professional: {
    name: 'professional',
    monitoredDomains: 25,
    scanProfiles: 25,
    groups: [
      'assets',
      'profiles',
      'scans',
      'zones',
      'vulnerabilities',
      'members',
      'groups',
      'inventory',
      'events',
      'exports',
      'imports',
    ],
  },
  enterprise: {
    name: 'enterprise',
    monitoredDomains: 500,
    scanProfiles: 500,
    groups: endpointGroups,
  },
} as const satisfies Record<string, Plan>;

/** The name of a plan. */
export type PlanName = 'starter' | 'professional' | 'enterprise';

/** The default plan of a new team. */
export const defaultPlan: PlanName = 'professional';

/** True when the text names a plan. */
export function isPlanName(value: string): value is PlanName {
  return Object.hasOwn(plans, value);
}

/** True when the text names an endpoint group. */
export function isEndpointGroup(value: string): value is EndpointGroup {
  return (endpointGroups as readonly string[]).includes(value);
}
