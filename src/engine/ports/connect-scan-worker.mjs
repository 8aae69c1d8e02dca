// Worker-thread entry of the parallel connect scan (parallel-connect-scan.ts). Plain JavaScript so
// that it starts however the parent loaded TypeScript: on node 20 a worker inherits neither
// `--import tsx` nor tsx's register(), so the scan module is then loaded through tsx's tsImport().
let scanModule;
try {
  scanModule = await import('./connect-scan-thread.ts');
} catch (err) {
  if (err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
  const { tsImport } = await import('tsx/esm/api');
  scanModule = await tsImport('./connect-scan-thread.ts', import.meta.url);
}
scanModule.serveConnectScan();
