import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigError,
  configFlagNames,
  defaultConfig,
  knownVariables,
  loadConfig,
  unknownVariableWarnings,
} from './config.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

describe('configuration: the SSRF canary', () => {
  it('listens on 127.0.0.1, an ephemeral port, by default, with the URL derived from it', () => {
    const config = loadConfig({ env: {} });
    assert.deepEqual(config.scanCanaryListen, { host: '127.0.0.1', port: 0 });
    assert.equal(config.scanCanaryUrl, undefined);
  });

  it('takes a listen address and the URL targets must use, or off', () => {
    const config = loadConfig({
      env: {
        PERIMETER_SCAN_CANARY_LISTEN: '0.0.0.0:8099',
        PERIMETER_SCAN_CANARY_URL: 'http://scanner.example.net:8099/',
      },
    });
    assert.deepEqual(config.scanCanaryListen, { host: '0.0.0.0', port: 8099 });
    assert.equal(config.scanCanaryUrl, 'http://scanner.example.net:8099');
    assert.equal(loadConfig({ env: { PERIMETER_SCAN_CANARY_LISTEN: 'off' } }).scanCanaryListen, undefined);
    assert.equal(
      loadConfig({ env: {}, flags: { 'scan-canary-listen': '127.0.0.1:9000' } }).scanCanaryListen?.port,
      9000,
    );
  });

  it('refuses settings that cannot work: a bad address, a URL with a query, a URL with an ephemeral port, a wildcard without a URL', () => {
    assert.match(
      problemsOf({ PERIMETER_SCAN_CANARY_LISTEN: '8099' }).join(),
      /PERIMETER_SCAN_CANARY_LISTEN must be host:port/,
    );
    assert.match(
      problemsOf({ PERIMETER_SCAN_CANARY_LISTEN: '127.0.0.1:8099', PERIMETER_SCAN_CANARY_URL: 'ftp://x' }).join(),
      /must be an http/,
    );
    assert.match(
      problemsOf({ PERIMETER_SCAN_CANARY_LISTEN: '127.0.0.1:8099', PERIMETER_SCAN_CANARY_URL: 'http://x/?a=1' }).join(),
      /no query/,
    );
    assert.match(
      problemsOf({ PERIMETER_SCAN_CANARY_URL: 'http://scanner.example.net:8099' }).join(),
      /needs a fixed port/,
    );
    assert.match(
      problemsOf({ PERIMETER_SCAN_CANARY_LISTEN: '0.0.0.0:8099' }).join(),
      /PERIMETER_SCAN_CANARY_URL is required/,
    );
  });
});

describe('configuration: the PostgreSQL pool', () => {
  it('leaves the size to the store by default, and takes 1–500 connections', () => {
    assert.equal(loadConfig({ env: {} }).storePoolSize, undefined);
    assert.equal(loadConfig({ env: { PERIMETER_STORE_POOL_SIZE: '12' } }).storePoolSize, 12);
    assert.equal(loadConfig({ env: {}, flags: { 'store-pool-size': '6' } }).storePoolSize, 6);
    assert.match(problemsOf({ PERIMETER_STORE_POOL_SIZE: '0' }).join(), /PERIMETER_STORE_POOL_SIZE/);
    assert.match(problemsOf({ PERIMETER_STORE_POOL_SIZE: 'many' }).join(), /PERIMETER_STORE_POOL_SIZE/);
  });
});

describe('configuration: scan threads', () => {
  it('runs scans on one thread by default, takes 0 (the event loop) to 64, and refuses two threads on one fixed canary port', () => {
    assert.equal(loadConfig({ env: {} }).scanThreads, 1);
    assert.equal(loadConfig({ env: { PERIMETER_SCAN_THREADS: '0' } }).scanThreads, 0);
    assert.equal(loadConfig({ env: {}, flags: { 'scan-threads': '4' } }).scanThreads, 4);
    assert.match(problemsOf({ PERIMETER_SCAN_THREADS: '-1' }).join(), /PERIMETER_SCAN_THREADS/);
    assert.match(problemsOf({ PERIMETER_SCAN_THREADS: '65' }).join(), /PERIMETER_SCAN_THREADS/);
    assert.match(
      problemsOf({ PERIMETER_SCAN_THREADS: '2', PERIMETER_SCAN_CANARY_LISTEN: '127.0.0.1:8099' }).join(),
      /needs an ephemeral canary port/,
    );
    assert.deepEqual(problemsOf({ PERIMETER_SCAN_THREADS: '1', PERIMETER_SCAN_CANARY_LISTEN: '127.0.0.1:8099' }), []);
    assert.deepEqual(problemsOf({ PERIMETER_SCAN_THREADS: '2' }), []);
  });
});

describe('configuration: the bulk resolver sockets', () => {
  it('uses the batch sockets by default, takes dgram, refuses anything else', () => {
    assert.equal(loadConfig({ env: {} }).dnsUdpSockets, 'batch');
    assert.equal(loadConfig({ env: { PERIMETER_DNS_UDP_SOCKETS: 'dgram' } }).dnsUdpSockets, 'dgram');
    assert.equal(loadConfig({ env: {}, flags: { 'dns-udp-sockets': 'dgram' } }).dnsUdpSockets, 'dgram');
    assert.match(
      problemsOf({ PERIMETER_DNS_UDP_SOCKETS: 'fast' }).join(),
      /PERIMETER_DNS_UDP_SOCKETS must be batch or dgram/,
    );
  });
});

describe('configuration: command-line flags', () => {
  it('lists a flag for every setting, so the CLI passes each on (it once dropped --store-readers and --store-pool-size)', () => {
    for (const flag of [
      'config',
      'port',
      'dns-udp-sockets',
      'store-readers',
      'store-pool-size',
      'monitoring-concurrency',
      'scan-threads',
    ])
      assert.ok(configFlagNames.includes(flag), flag);
    assert.equal(new Set(configFlagNames).size, configFlagNames.length);
    assert.equal(configFlagNames.length, Object.keys(defaultConfig).length + 1);
  });
});

describe('configuration: the data directory', () => {
  it('is read from DATA_DIR or PERIMETER_DATA_DIR; DATA_DIR wins when both are set, the flag over both', () => {
    assert.equal(loadConfig({ env: {} }).dataDir, defaultConfig.dataDir);
    assert.equal(loadConfig({ env: { PERIMETER_DATA_DIR: '/tmp/a' } }).dataDir, '/tmp/a');
    assert.equal(loadConfig({ env: { DATA_DIR: '/tmp/b' } }).dataDir, '/tmp/b');
    assert.equal(loadConfig({ env: { PERIMETER_DATA_DIR: '/tmp/a', DATA_DIR: '/tmp/b' } }).dataDir, '/tmp/b');
    assert.equal(
      loadConfig({ env: { PERIMETER_DATA_DIR: '/tmp/a' }, flags: { 'data-dir': '/tmp/c' } }).dataDir,
      '/tmp/c',
    );
  });
});

describe('configuration: the public URL', () => {
  it('takes an http or https URL and refuses any other scheme', () => {
    assert.equal(
      loadConfig({ env: { PERIMETER_PUBLIC_URL: 'https://perimeter.example.com/' } }).publicUrl,
      'https://perimeter.example.com',
    );
    assert.deepEqual(problemsOf({ PERIMETER_PUBLIC_URL: 'javascript:alert(1)' }), [
      'PERIMETER_PUBLIC_URL must be an http or https URL, got "javascript:alert(1)"',
    ]);
  });
});

describe('configuration: the server key', () => {
  it('takes exactly 32 bytes in base64 and refuses anything around them', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    assert.equal(loadConfig({ env: { PERIMETER_SECRET_KEY: key } }).secretKey, key);
    assert.equal(loadConfig({ env: { PERIMETER_SECRET_KEY: key.replace(/=$/, '') } }).secretKey, key.replace(/=$/, ''));
    for (const bad of [`${key}!!!!`, key.slice(0, 40), `${key}AAAA`, 'not a key']) {
      assert.deepEqual(
        problemsOf({ PERIMETER_SECRET_KEY: bad }),
        [
          'PERIMETER_SECRET_KEY must be the base64 form of 32 bytes (44 characters, as `openssl rand -base64 32` prints)',
        ],
        bad,
      );
    }
  });
});

describe('configuration: unknown PERIMETER_ variables', () => {
  it('names each variable nothing reads, with the closest known name when one is near', () => {
    const warnings = unknownVariableWarnings({
      PERIMETER_EGRES_ALLOW: '127.0.0.0/8',
      PERIMETER_SCAN_THREAD: '2',
      PERIMETER_WHATEVER_ELSE_ENTIRELY: 'x',
      PERIMETER_EGRESS_ALLOW: '10.0.0.0/8',
      HOME: '/root',
      PORT: '1',
    });
    assert.deepEqual(warnings, [
      'PERIMETER_EGRES_ALLOW is not a setting of perimeter and is ignored: did you mean PERIMETER_EGRESS_ALLOW?',
      'PERIMETER_SCAN_THREAD is not a setting of perimeter and is ignored: did you mean PERIMETER_SCAN_THREADS?',
      'PERIMETER_WHATEVER_ELSE_ENTIRELY is not a setting of perimeter and is ignored',
    ]);
  });

  it('knows every variable of every setting, its aliases, the config file and the test runner', () => {
    const env = Object.fromEntries(knownVariables.map((name) => [name, 'x']));
    assert.deepEqual(unknownVariableWarnings(env), []);
    for (const name of ['PERIMETER_DATA_DIR', 'PERIMETER_CONFIG', 'PERIMETER_SECRET_KEY', 'PERIMETER_TEST_STORE'])
      assert.ok(knownVariables.includes(name), name);
  });
});
