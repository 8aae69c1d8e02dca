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
        'Folders that depend on each other in a loop (e.g. two areas of the core importing each other): cross-area needs go through a narrow interface passed in.',
      scope: 'folder',
      from: { path: '^src/core/' },
      to: { path: '^src/core/', circular: true },
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
