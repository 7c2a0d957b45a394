/**
 * Numbers as JSON text: times through epochText, which must write what String does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { epochText, jsonNumber } from './json-numbers.js';

describe('epochText', () => {
  it.each([
    [0, '0'],
    [999_999, '999999'],
    [1_000_000, '1000000'],
    [1_000_009, '1000009'],
    [1_767_225_600_000, '1767225600000'],
    [1_767_225_600_001, '1767225600001'],
    [1_767_225_599_999, '1767225599999'],
    [999_999_999_999_999, '999999999999999'],
    [1e15, '1000000000000000'],
    [8.64e15, '8640000000000000'],
    [-1, '-1'],
    [-8.64e15, '-8640000000000000'],
    [1.5, '1.5'],
    [Number.NaN, 'null'],
    [Number.POSITIVE_INFINITY, 'null'],
  ])('writes %s as %s', (t, text) => {
    expect(epochText(t)).toBe(text);
  });

  it('writes every integer time as String does', () => {
    fc.assert(
      // Times of the fast path (1e6 to 1e15) as often as the rest.
      fc.property(fc.oneof(fc.integer({ min: 1e6, max: 1e15 }), fc.integer({ min: -8.64e15, max: 8.64e15 })), (t) => epochText(t) === String(t)),
      { numRuns: 20_000 },
    );
  });

  it('writes every other number as jsonNumber does', () => {
    fc.assert(fc.property(fc.double(), (t) => epochText(t) === jsonNumber(t)));
  });
});
