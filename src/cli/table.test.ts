import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTable, formatTime } from './table.ts';

describe('CLI tables', () => {
  it('pads every column to its widest cell and leaves no trailing spaces', () => {
    const text = formatTable(
      ['ID', 'KIND', 'LAST USED'],
      [
        ['key_1', 'v2', 'never'],
        ['key_22', 'v3', '2025-01-31 12:00:05Z'],
      ],
    );
    assert.equal(
      text,
      ['ID      KIND  LAST USED', 'key_1   v2    never', 'key_22  v3    2025-01-31 12:00:05Z'].join('\n'),
    );
  });

  it('prints the headers alone when there are no rows', () => {
    assert.equal(formatTable(['ID', 'KIND'], []), 'ID  KIND');
  });

  it('writes times in UTC to the second, or the given word when there is none', () => {
    assert.equal(formatTime(new Date('2025-01-31T12:00:05.678Z'), 'never'), '2025-01-31 12:00:05Z');
    assert.equal(formatTime(null, 'never'), 'never');
  });
});
