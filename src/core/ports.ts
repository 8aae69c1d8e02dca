import type { LegacyPorts } from './legacy/legacy.types.ts';
import type { ScanPorts } from './scans/scan.types.ts';
import type { GroupPatternSource } from './vulnerabilities/group-filter.ts';
import type { SeedAssetAdder } from './vulnerabilities/seed.service.ts';
import type { ZonePorts } from './zones/zone-lookup.types.ts';

/**
 * The capabilities the areas of the core lend each other. Each is a narrow interface declared by
 * the area that needs it (AssetTokenLookup in scans, ApexAssetAdder in zones, …) and implemented
 * by the area that owns the rule; an area never imports another area's service. The composition
 * root (runtime.ts) builds one object of them from the owning areas' functions, and the faces
 * pass it on with the store (AppDeps.ports, CoreRuntime.ports). Like core/store.ts, this file is
 * assembled outside the areas: no area imports it.
 */
export type CorePorts = ScanPorts &
  LegacyPorts &
  ZonePorts & {
    assets: SeedAssetAdder;
    groups: GroupPatternSource;
  };
