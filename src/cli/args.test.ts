import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isHelpRequest, parseArgs, UsageError } from './args.ts';

describe('command-line arguments', () => {
  it('parses positionals, flags, switches and repeated flags', () => {
    const args = parseArgs(
      ['key', 'create', '--team', 'demo', '--v3', '--permission=assets', '--permission', 'scans'],
      { switches: ['v3'], repeatable: ['permission'] },
    );
    assert.deepEqual(args.positionals, ['key', 'create']);
    assert.deepEqual(args.flags, { team: 'demo' });
    assert.deepEqual([...args.switches], ['v3']);
    assert.deepEqual(args.lists, { permission: ['assets', 'scans'] });
  });

  it('refuses a flag without its value with a usage error', () => {
    assert.throws(
      () => parseArgs(['key', 'list', '--team']),
      (e: unknown) => e instanceof UsageError && e.message === '--team needs a value',
    );
    assert.throws(() => parseArgs(['--team', '--json']), UsageError);
  });

  it('recognises a request for help anywhere, or the word help first', () => {
    assert.equal(isHelpRequest(['--help']), true);
    assert.equal(isHelpRequest(['key', '-h']), true);
    assert.equal(isHelpRequest(['help']), true);
    assert.equal(isHelpRequest(['key', 'list', '--team', 'help']), false);
    assert.equal(isHelpRequest([]), false);
  });
});
