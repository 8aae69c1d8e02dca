import { malformedAssetToken } from '../../core/assets/asset.service.ts';
import { malformedReportToken } from '../../core/legacy/legacy-reports.service.ts';
import { malformedPatternToken } from '../../core/groups/asset-pattern.service.ts';
import { malformedGroupMemberToken } from '../../core/groups/group-member.service.ts';
import { malformedGroupToken } from '../../core/groups/group.service.ts';
import { malformedProfileToken } from '../../core/scans/scan-profile.service.ts';
import { malformedVulnerabilityUuid } from '../../core/vulnerabilities/vulnerability-status.service.ts';
import { malformedLookupJobUuid } from '../../core/zones/zone-lookup.service.ts';
import type { FieldError, RouteInput } from '../route.ts';

/**
 * The errors of the v2 path parameters that fail their schemas (a token is 32 lowercase hex
 * characters, a UUID a UUID): each name answers its catalogue code, whatever the operation.
 */
const pathErrors = {
  assetToken: malformedAssetToken,
  domainToken: malformedAssetToken,
  scanProfileToken: malformedProfileToken,
  groupToken: () => malformedGroupToken(),
  uuid: malformedVulnerabilityUuid,
  lookupJobUUID: malformedLookupJobUuid,
  assetPatternToken: malformedPatternToken,
  groupMemberToken: malformedGroupMemberToken,
  reportToken: malformedReportToken,
} satisfies Record<string, FieldError>;

/**
 * The declared errors of a route's first path parameter (RouteInput.params). A later one (a
 * group's asset pattern or member, a report of a profile, a finding's UUID) is declared with
 * latePathInput.
 */
export function pathInput(name: keyof typeof pathErrors): NonNullable<RouteInput['params']> {
  return { [name]: pathErrors[name] };
}

/**
 * The declared errors of a route's later path parameters (RouteInput.lateParams): the operation
 * reads each with `ctx.checkedParam` after the lookup of the one before it, so the unknown group
 * answers first, as it always has.
 */
export function latePathInput(...names: Array<keyof typeof pathErrors>): NonNullable<RouteInput['lateParams']> {
  return Object.fromEntries(names.map((name) => [name, pathErrors[name]]));
}
