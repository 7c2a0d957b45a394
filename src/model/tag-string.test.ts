import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedTagNames } from './tag-string.js';

describe('sortedTagNames', () => {
  it('orders names as Array.prototype.sort does (UTF-16 code units), few or many, in whatever order they came', () => {
    const name = fc.string({
      unit: fc.constantFrom('a', 'B', 'b', '1', '10', 'é', '\u{1F600}', '_', ''),
      maxLength: 4,
    });
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 40 }), (names) => {
        const tags = Object.fromEntries(names.map((n) => [n, 'v']));
        expect(sortedTagNames(tags)).toEqual(Object.keys(tags).sort());
      }),
      { numRuns: 500 },
    );
  });
});
