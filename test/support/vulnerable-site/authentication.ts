import type { SiteModule } from './types.ts';

/** The authentication spots of the fixture site (see index.ts); each path answers fixed on the safe twin. */
export const authenticationModule: SiteModule = {
  name: 'authentication',
  spots: [],
  links: [],
  handle: () => undefined,
};
