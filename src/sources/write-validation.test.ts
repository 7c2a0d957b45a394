/**
 * The shared write validation: tags keyed by any name (Object's members too), timestamps under the one time rule,
 * and names and series held to the store's key limits, each refusal naming its field before anything is written.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../model/errors.js';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { validateMetricName, validateWrite, type SeriesInput } from './write-validation.js';

const LIMITS = { maxPoints: 100, keys: embeddedKeyLimits(1978) };
const RULE = 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000';

function series(overrides: Partial<SeriesInput>): SeriesInput {
  return { metric: 'm', tags: { h: 'a' }, type: 'long', points: [{ timestamp: 1, value: 1 }], ...overrides };
}

describe('validateWrite', () => {
  it("keeps tags named after Object's members as data, sorted, in a record without a prototype", () => {
    const tags = JSON.parse('{"toString": "t", "__proto__": "x", "constructor": "c"}') as Record<string, unknown>;
    const [written] = validateWrite([series({ tags })], 'series', LIMITS).series;
    expect(Object.getPrototypeOf(written!.tags)).toBe(null);
    expect(Object.entries(written!.tags)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'c'],
      ['toString', 't'],
    ]);
  });

  it('validates frozen tags (an interned series) once, and still refuses them where no tags are allowed', () => {
    const tags = Object.freeze({ h: 'a' });
    const [first] = validateWrite([series({ tags })], 'series', LIMITS).series;
    const [again] = validateWrite([series({ tags })], 'series', LIMITS).series;
    expect(again!.tags).toBe(first!.tags);
    expect(Object.isFrozen(first!.tags)).toBe(true);
    const none = Object.freeze({});
    expect(validateWrite([series({ tags: none })], 'series', { ...LIMITS, allowNoTags: true }).series[0]!.tags).toEqual(
      {},
    );
    expect(() => validateWrite([series({ tags: none })], 'series', LIMITS)).toThrow(
      'series[0].tags must hold at least one tag (got {})',
    );
    // Frozen tags without a prototype, in order, are their own validation; others are made so.
    const made = Object.freeze(Object.assign(Object.create(null) as Record<string, string>, { a: '1', b: '2' }));
    expect(validateWrite([series({ tags: made })], 'series', LIMITS).series[0]!.tags).toBe(made);
    const unsorted = Object.freeze(Object.assign(Object.create(null) as Record<string, string>, { b: '2', a: '1' }));
    const sorted = validateWrite([series({ tags: unsorted })], 'series', LIMITS).series[0]!.tags;
    expect([sorted === unsorted, Object.keys(sorted), Object.isFrozen(sorted)]).toEqual([false, ['a', 'b'], true]);
    const bad = Object.freeze({ h: '' });
    for (let k = 0; k < 2; k++)
      expect(() => validateWrite([series({ tags: bad })], 'series', LIMITS)).toThrow(
        'series[0].tags.h must not be empty (got "")',
      );
  });

  it('takes a series whose only tag is __proto__, which used to leave none', () => {
    const [written] = validateWrite(
      [series({ tags: JSON.parse('{"__proto__": "x"}') as unknown })],
      'series',
      LIMITS,
    ).series;
    expect(Object.keys(written!.tags)).toEqual(['__proto__']);
  });

  it('takes timestamps at both ends of ±8.64e15 ms and refuses one beyond, naming the point', () => {
    const points = [
      { timestamp: -8_640_000_000_000_000, value: 1 },
      { timestamp: 8_640_000_000_000_000, value: 2 },
    ];
    expect(validateWrite([series({ points })], 'series', LIMITS).series[0]!.timestamps).toEqual([
      -8_640_000_000_000_000, 8_640_000_000_000_000,
    ]);
    const far = [...points, { timestamp: 8_640_000_000_000_001, value: 3 }];
    expect(() => validateWrite([series({}), series({ points: far })], 'series', LIMITS)).toThrow(
      new InputError('series[1].points[2].timestamp', 8_640_000_000_000_001, RULE),
    );
  });

  it("refuses a metric name or tags too large for the store's keys, naming the field and the limit", () => {
    const name = 'n'.repeat(1965);
    expect(() => validateWrite([series({}), series({ metric: name })], 'series', LIMITS)).toThrow(
      new InputError(
        'series[1].metric',
        name,
        "must be at most 1964 bytes in UTF-8, the longest metric name the embedded store's keys hold (it is 1965 bytes)",
      ),
    );
    const tags = { h: 'v'.repeat(1950) };
    expect(() => validateWrite([series({ tags })], 'series', LIMITS)).toThrow(
      new InputError(
        'series[0].tags',
        tags,
        "make a row key of 1976 bytes with the metric name, over the 1971 bytes the embedded store's keys hold",
      ),
    );
  });
});

describe('validateMetricName', () => {
  it('holds a name to the store limits wherever it is read, with the caller’s field', () => {
    expect(validateMetricName('é'.repeat(982), 'query.metric[0].name', LIMITS.keys)).toBe('é'.repeat(982));
    expect(() => validateMetricName('é'.repeat(983), 'query.metric[0].name', LIMITS.keys)).toThrow(
      "query.metric[0].name must be at most 1964 bytes in UTF-8, the longest metric name the embedded store's keys hold (it is 1966 bytes)",
    );
  });
});
