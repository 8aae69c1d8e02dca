import type { SiteModule } from './types.ts';

/** The exposure spots of the fixture site (see index.ts); each path answers fixed on the safe twin. */
export const exposureModule: SiteModule = {
  name: 'exposure',
  spots: [],
  links: [],
  handle: () => undefined,
};
