import type { ScanEngine } from '../../core/scans/scan-engine.ts';
import type { SurfaceEngine } from '../../core/surface/surface-engine.ts';
import { discoverSurface } from './surface-discovery.ts';
import type { DiscoveryDeps } from './discovery.types.ts';

/** The surface engine of the core: discovery (with its takeover tests) and the scanner's stateless tests. */
export function createSurfaceEngine(
  deps: DiscoveryDeps,
  scanEngine: Pick<ScanEngine, 'statelessTests'>,
): SurfaceEngine {
  return {
    discover: (request) => discoverSurface(deps, request),
    statelessTests: (origins, options, sink, signal) => scanEngine.statelessTests(origins, options, sink, signal),
  };
}
