/**
 * The dependency rule of the architecture (docs: /README.md "Layout"), checked by
 * `npm run depcheck` and in CI:
 *   http | cli | jobs → core ← storage | engine
 * The core knows no HTTP, SQL, process or engine; configuration knows no engine; and no module
 * depends on itself through others (type-only imports count: a cycle of types is still a cycle).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A module that depends on itself through others: one of them owns a port the other should take as a parameter.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      severity: 'error',
      comment:
        'Folders that depend on each other in a loop (two areas of the core, or two folders of the engine, importing each other): cross-area needs go through a narrow interface passed in, or the shared piece moves to the folder that owns it.',
      scope: 'folder',
      from: { path: '^src/(core|engine)/' },
      to: { path: '^src/(core|engine)/', circular: true },
    },
    // dependency-cruiser's folder check (above) does not see a loop between a folder and one of its
    // own subfolders (http-scan ↔ http-scan/checks was one), so: a file in a subfolder of the core
    // or the engine never imports a file of a folder above it, one rule per distance (1 to 3
    // levels up). What a subfolder needs of its parent moves to a folder both may import
    // (http-scan/check-kit, engine/threads) or is passed in.
    ...[1, 2, 3].map((levels) => ({
      name: 'no-upward-imports',
      severity: 'error',
      comment:
        'A subfolder of the core or the engine imports a file of a folder above it; the folder above imports into its subfolders, so that is a loop the folder check cannot see. Move what both need to a folder both may import (engine/http-scan/check-kit for the checks), or pass it in.',
      // $1 is the folder `levels` above the importer's (written without nested repetition, which
      // dependency-cruiser refuses as an unsafe regular expression).
      from: { path: `^(src/(?:core|engine)/|src/(?:core|engine)/.*/)${'[^/]+/'.repeat(levels)}[^/]+$` },
      to: { path: '^$1[^/]+$' },
    })),
    {
      name: 'no-cross-area-services',
      severity: 'error',
      comment:
        "An area of the core does not import another area's service (behaviour with store access), not even its types: it declares the narrow port it needs (AssetTokenLookup in scans, ApexAssetAdder in zones, …), the owning area implements it, and the composition root passes it in (core/ports.ts). Types, errors and pure helpers (*.types.ts, asset-name.ts, core/shared) may be shared.",
      from: { path: '^src/core/([^/]+)/' },
      to: { path: '^src/core/([^/]+)/[^/]+\\.service\\.ts$', pathNot: '^src/core/$1/' },
    },
    {
      name: 'core-is-the-centre',
      severity: 'error',
      comment: 'The core knows no HTTP, CLI, jobs, SQL, engine or configuration: they are passed in through its ports.',
      from: { path: '^src/core/' },
      to: { path: '^src/(http|cli|jobs|storage|engine|config)/' },
    },
    {
      name: 'core-knows-no-composition',
      severity: 'error',
      comment: 'The core is wired by the composition root, never the other way round.',
      from: { path: '^src/core/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'engine-and-storage-are-not-faces',
      severity: 'error',
      comment:
        'The engine and the storage serve the core; the faces (HTTP, CLI, jobs) call them, not the other way round.',
      from: { path: '^src/(engine|storage)/' },
      to: { path: '^src/(http|cli|jobs)/' },
    },
    {
      name: 'config-knows-no-engine',
      severity: 'error',
      comment:
        'Configuration parses values the engine uses; the engine imports configuration, never the other way round.',
      from: { path: '^src/config/' },
      to: { path: '^src/engine/' },
    },
    {
      name: 'shared-is-a-leaf',
      severity: 'error',
      comment: 'src/shared holds pure helpers every layer may use: it imports nothing else of src.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'migrations-are-frozen',
      severity: 'error',
      comment:
        'A released migration must keep doing what it did: it imports no live code of src (a frozen copy of what it needs goes inside it). Allowed: other files of src/storage/migrations, the sql helper of src/storage/kysely.ts, and types of src/storage/schema.ts and src/storage/database.ts (see the next rule).',
      from: { path: '^src/storage/migrations/' },
      to: {
        path: '^src/',
        pathNot: ['^src/storage/migrations/', '^src/storage/kysely\\.ts$', '^src/storage/(schema|database)\\.ts$'],
      },
    },
    {
      name: 'migrations-take-only-types-of-the-store',
      severity: 'error',
      comment:
        'A migration may name the types of src/storage/schema.ts and src/storage/database.ts, never their values.',
      from: { path: '^src/storage/migrations/' },
      to: { path: '^src/storage/(schema|database)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    // Type-only imports are dependencies too: a cycle made of types is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.d.mts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
