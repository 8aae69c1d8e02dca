// Loads a TypeScript module from a worker thread's plain-JavaScript entry, however the parent
// loaded TypeScript: on node 20 a worker inherits neither `--import tsx` nor tsx's register(), so
// the module is then loaded through tsx's tsImport(). `specifier` resolves against `parentUrl`.
export async function importTs(specifier, parentUrl) {
  try {
    return await import(new URL(specifier, parentUrl).href);
  } catch (err) {
    if (err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    const { tsImport } = await import('tsx/esm/api');
    return tsImport(specifier, parentUrl);
  }
}
