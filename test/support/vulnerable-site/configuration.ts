import type { SiteModule } from './types.ts';

/** The configuration spots of the fixture site (see index.ts); each path answers fixed on the safe twin. */
export const configurationModule: SiteModule = {
  name: 'configuration',
  spots: [],
  links: [],
  handle: () => undefined,
};
