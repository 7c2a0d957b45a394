/**
 * JSON written into bytes: every method writes what JSON.stringify (or Date's toISOString) would, and the pieces
 * taken, laid end to end, are everything written, in order, across the buffers it fills.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytes, NumberRun } from './json-bytes.js';

/** What `write` puts into a fresh JsonBytes, as text. */
function written(write: (out: JsonBytes) => void): string {
  const out = new JsonBytes();
  write(out);
  return Buffer.concat(out.take()).toString('utf8');
}

const iso = (ms: number) => `"${new Date(ms).toISOString()}"`;

describe('JsonBytes', () => {
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
    [-0, '0'],
    [-8.64e15, '-8640000000000000'],
    [1.5, '1.5'],
    [Number.NaN, 'null'],
    [Number.POSITIVE_INFINITY, 'null'],
  ])('writes the time %s as %s', (t, text) => {
    expect(written((out) => out.epoch(t))).toBe(text);
  });

  it('writes every integer time as String does, and every other number as JSON.stringify does', () => {
    // Times of the fast path (1e6 to 1e15) as often as the rest.
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1e6, max: 1e15 }), fc.integer({ min: -8.64e15, max: 8.64e15 })),
        (t) => written((out) => out.epoch(t)) === String(t),
      ),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(
        fc.double(),
        (v) =>
          written((out) => out.epoch(v)) === JSON.stringify(v) && written((out) => out.number(v)) === JSON.stringify(v),
      ),
    );
  });

  it("writes times as Date's toISOString does, for any time and for runs of times within a day", () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => written((out) => out.isoTime(ms)) === iso(ms)),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: -1e13, max: 1e13 }),
        fc.array(fc.integer({ min: 0, max: 3_600_000 }), { maxLength: 30 }),
        (start, steps) => {
          const times = steps.map((_, k) => start + steps.slice(0, k + 1).reduce((a, b) => a + b, 0));
          return (
            written((out) => {
              for (const ms of times) out.isoTime(ms);
            }) === times.map(iso).join('')
          );
        },
      ),
    );
    for (const ms of [
      0, -1, 999, -86_400_000, -86_400_001, 86_399_999, 8.64e15, -8.64e15, 1767225600123, 253402300799999,
      253402300800000, 1.5,
    ]) {
      expect(written((out) => out.isoTime(ms))).toBe(iso(ms));
    }
    expect(() => written((out) => out.isoTime(8.64e15 + 1))).toThrow(RangeError);
  });

  it('writes the numbers of a run as `number` does, in order or not, from arrays and typed arrays, across their texts', () => {
    fc.assert(
      // Short runs, and runs longer than one text of theirs (2048 numbers).
      fc.property(
        fc.oneof(fc.array(fc.double(), { maxLength: 60 }), fc.array(fc.double(), { minLength: 2049, maxLength: 5000 })),
        fc.array(fc.nat(), { maxLength: 50 }),
        (values, jumps) => {
          // The order a renderer asks for them in (each in turn), then some jumps back and forth.
          const order = [...values.keys(), ...jumps.filter(() => values.length > 0).map((j) => j % values.length)];
          const expected = order.map((i) => JSON.stringify(values[i])).join('');
          for (const run of [new NumberRun(values), new NumberRun(Float64Array.from(values))]) {
            if (
              written((out) => {
                for (const i of order) out.nextOf(run.seek(i));
              }) !== expected
            )
              return false;
          }
          return true;
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes a span of numbers separated by commas as `number` writes each, from arrays and typed arrays', () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { maxLength: 300 }), fc.nat(), fc.nat(), (values, a, b) => {
        const [from, to] = [a % (values.length + 1), b % (values.length + 1)].sort((x, y) => x - y) as [number, number];
        const expected = values
          .slice(from, to)
          .map((v) => JSON.stringify(v))
          .join(',');
        return [values, Float64Array.from(values)].every(
          (run) => written((out) => out.numbers(run, from, to)) === expected,
        );
      }),
    );
  });

  it('writes any JSON text as UTF-8, short or long, ASCII or not', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        (s) => written((out) => out.text(JSON.stringify(s))) === JSON.stringify(s),
      ),
    );
    expect(written((out) => out.text(JSON.stringify('\uD800 lone')))).toBe(
      Buffer.from(JSON.stringify('\uD800 lone')).toString('utf8'),
    );
  });

  it('gives back everything written, in order, across the buffers it fills, a text longer than one of them included', () => {
    const out = new JsonBytes();
    const expected: string[] = [];
    const taken: Buffer[] = [];
    for (let i = 0; i < 60_000; i++) {
      out.number(i / 3);
      out.byte(0x2c);
      expected.push(`${JSON.stringify(i / 3)},`);
      if (i % 7_000 === 0) taken.push(...out.take());
    }
    const long = JSON.stringify(`${'x'.repeat(300_000)}é`);
    out.text(long);
    out.bytes(Buffer.from('[1,2]'));
    out.bytes(Buffer.from('a'.repeat(100)));
    expected.push(long, '[1,2]', 'a'.repeat(100));
    taken.push(...out.take());
    expect(taken.length).toBeGreaterThan(8);
    expect(Buffer.concat(taken).toString('utf8')).toBe(expected.join(''));
    expect(out.take()).toEqual([]);
  });
});
