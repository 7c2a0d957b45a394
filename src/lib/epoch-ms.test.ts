/** The one time rule: whole epoch milliseconds within ±8.64e15, the range Date and ISO-8601 can show. */
import { describe, expect, it } from 'vitest';
import { EPOCH_MS_RULE, isEpochMs, MAX_EPOCH_MS } from './epoch-ms.js';

describe('isEpochMs', () => {
  it('takes whole milliseconds up to both ends, the ends that Date can show', () => {
    expect([-8_640_000_000_000_000, -1, 0, 1_714_557_600_000, 8_640_000_000_000_000].map(isEpochMs)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([new Date(-MAX_EPOCH_MS).toISOString(), new Date(MAX_EPOCH_MS).toISOString()]).toEqual([
      '-271821-04-20T00:00:00.000Z',
      '+275760-09-13T00:00:00.000Z',
    ]);
  });

  it.each([
    -8_640_000_000_000_001,
    8_640_000_000_000_001,
    9e15,
    2 ** 53,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '5',
    5n,
    null,
    undefined,
  ])('refuses %s', (value) => {
    expect(isEpochMs(value)).toBe(false);
  });

  it('states the rule with both ends written out', () => {
    expect(EPOCH_MS_RULE).toBe('must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000');
  });
});
