import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { openCoreRuntime } from '../../src/runtime.ts';
import { OperatorError } from '../../src/core/errors/operator-error.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

/**
 * A process started with another server key than the store's secrets were sealed with must not
 * start: every signed request would answer 1910 and every connector fail, as server faults.
 */
describe(`the server key and the store (${testStore})`, () => {
  let h: Harness | undefined;
  let hooks: Harness | undefined;
  after(async () => {
    await h?.close();
    await hooks?.close();
  });

  it('refuses to open a store whose signing secrets another key sealed, and opens it with the right key', async () => {
    h = await createHarness();
    await h.team('keyed');
    const other = randomBytes(32).toString('base64');
    // No sealed secret yet: any key opens the store (nothing to check).
    const before = await openCoreRuntime(
      { ...h.config, secretKey: other },
      { database: await h.openDatabase(), log: pino({ level: 'silent' }) },
    );
    await before.database.close();
    await h.key('keyed', '--signing');
    const database = await h.openDatabase();
    try {
      await assert.rejects(
        openCoreRuntime({ ...h.config, secretKey: other }, { database, log: pino({ level: 'silent' }) }),
        (err: unknown) =>
          err instanceof OperatorError &&
          /^the server key does not open this store's secrets \(.+\): it was made with another key/.test(err.message),
      );
      const right = await openCoreRuntime(h.config, { database, log: pino({ level: 'silent' }) });
      assert.ok(right.box !== undefined);
    } finally {
      await database.close();
    }
  });

  it('refuses another key when the only sealed secret is a webhook signing secret', async () => {
    hooks = await createHarness({ egressAllow: ['127.0.0.0/8'] });
    await hooks.team('hooked');
    const v3 = (await hooks.key('hooked', '--v3')).key;
    const res = await hooks.send('POST', '/rest/v3/webhooks', {
      key: v3,
      body: { name: 'pager', url: 'http://127.0.0.1:9/hook', events: ['scan.completed'] },
    });
    assert.equal(res.statusCode, 201, res.body);
    const database = await hooks.openDatabase();
    try {
      await assert.rejects(
        openCoreRuntime(
          { ...hooks.config, secretKey: randomBytes(32).toString('base64') },
          { database, log: pino({ level: 'silent' }) },
        ),
        (err: unknown) => err instanceof OperatorError && /does not open this store's secrets/.test(err.message),
      );
    } finally {
      await database.close();
    }
  });
});
