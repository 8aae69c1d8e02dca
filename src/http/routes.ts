import type { RouteDef } from './route.ts';
import { assetRoutes } from './v2/assets.routes.ts';

/** Every operation of both surfaces, in documentation order. */
export function allRoutes(): RouteDef[] {
  return [...assetRoutes];
}
