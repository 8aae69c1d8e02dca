import type { SiteModule } from './types.ts';

/** The injection spots of the fixture site (see index.ts); each path answers fixed on the safe twin. */
export const injectionModule: SiteModule = {
  name: 'injection',
  spots: [],
  links: [],
  handle: () => undefined,
};
