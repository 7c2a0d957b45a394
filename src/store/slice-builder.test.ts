/**
 * The slice builder: cells of every data type decode into pages of the requested size, legacy rows split into runs
 * of one kind, and longs beyond ±2^53 carry their exact values.
 */
import { describe, expect, it } from 'vitest';
import {
  encodeColumn,
  encodeComplex,
  encodeDouble,
  encodeLegacyFloat,
  encodeLegacyLong,
  encodeLegacyRowColumn,
  encodeLong,
  encodeString,
} from './format/index.js';
import { SliceBuilder } from './slice-builder.js';
import type { NumberSlice, Slice } from '../model/series.js';
import type { RowKey, RowSpec } from './store.js';

const spec: RowSpec = { unit: 'MILLISECONDS', width: 1000 };
const keyOf = (dataType: string): RowKey => ({ metric: 'm', rowTime: 0, dataType, tags: { h: 'a' } });

/** Feeds cells at ts 0, 1, 2, ... through one builder and returns every slice it hands out. */
function build(
  dataType: string,
  values: Uint8Array[],
  pageSize: number,
  columnOf = (ts: number) => encodeColumn(spec, 0, ts),
  firstCapacity?: number,
): Slice[] {
  const builder = new SliceBuilder(keyOf(dataType), spec, pageSize, firstCapacity);
  const slices: Slice[] = [];
  values.forEach((value, ts) => {
    // Each value sits inside a larger buffer, as cells do inside a block.
    const buf = new Uint8Array(value.length + 3);
    buf.set(value, 1);
    const done = builder.add(columnOf(ts), buf, 1, 1 + value.length);
    if (done) slices.push(done);
  });
  const rest = builder.flush();
  if (rest) slices.push(rest);
  return slices;
}

/** A slice as plain values, to compare slices whose arrays differ in capacity. */
function plain(slice: Slice): unknown {
  return Object.fromEntries(
    Object.entries(slice).map(([name, value]) => [
      name,
      ArrayBuffer.isView(value) ? [...(value as unknown as Iterable<unknown>)] : value,
    ]),
  );
}

describe('SliceBuilder', () => {
  it('decodes complex cells into real and imaginary columns, page by page', () => {
    const slices = build('kairos_complex', [encodeComplex(1.5, -2), encodeComplex(0, 3), encodeComplex(-0.25, 0.5)], 2);
    expect(
      slices.map((s) => [
        s.kind,
        [...s.timestamps],
        [...(s.values as Float64Array)],
        s.kind === 'complex' ? [...s.imaginary] : [],
      ]),
    ).toEqual([
      ['complex', [0, 1], [1.5, 0], [-2, 3]],
      ['complex', [2], [-0.25], [0.5]],
    ]);
  });

  it('hands out pages it never writes again', () => {
    const [first, second] = build('kairos_double', [1, 2, 3, 4].map(encodeDouble), 2);
    expect([...first!.values]).toEqual([1, 2]);
    expect([...second!.values]).toEqual([3, 4]);
  });

  it('decodes strings and keeps the exact value of longs past 2^53 beside the numeric view', () => {
    expect(build('kairos_string', [encodeString('a'), encodeString('hé')], 8).map((s) => s.values)).toEqual([
      ['a', 'hé'],
    ]);
    const [slice] = build('kairos_long', [encodeLong(7), encodeLong(2n ** 62n), encodeLong(-1)], 8) as [NumberSlice];
    expect([...slice.exact!]).toEqual([7n, 2n ** 62n, -1n]);
    expect([...slice.values]).toEqual([7, 2 ** 62, -1]);
  });

  it('splits a kairos_legacy row into runs of one kind', () => {
    const cells = [encodeLegacyLong(5), encodeLegacyFloat(1.5), encodeLegacyFloat(2.5), encodeLegacyLong(6)];
    const isDouble = (ts: number) => ts === 1 || ts === 2;
    const slices = build('kairos_legacy', cells, 8, (ts) => encodeLegacyRowColumn(0, ts, isDouble(ts)));
    expect(slices.map((s) => [s.kind, [...s.timestamps], [...(s.values as Float64Array)]])).toEqual([
      ['long', [0], [5]],
      ['double', [1, 2], [1.5, 2.5]],
      ['long', [3], [6]],
    ]);
  });

  it('refuses a double or complex cell shorter than its type even inside a larger buffer', () => {
    const buf = Uint8Array.of(...encodeDouble(1.5), ...encodeDouble(2.5));
    expect(() => new SliceBuilder(keyOf('kairos_double'), spec).add(0, buf, 0, 7)).toThrow(
      new Error('double value is truncated: needs 8 bytes, has 7'),
    );
    expect(() => new SliceBuilder(keyOf('kairos_complex'), spec).add(0, buf, 0, 12)).toThrow(
      new Error('double value is truncated: needs 8 bytes, has 4'),
    );
  });

  it('grows a small first page to whole pages, with the same slices as whole pages from the start', () => {
    const huge = 2n ** 60n;
    const cases: [string, Uint8Array[], ((ts: number) => number)?][] = [
      ['kairos_double', Array.from({ length: 23 }, (_, i) => encodeDouble(i * 1.5))],
      ['kairos_long', Array.from({ length: 23 }, (_, i) => encodeLong(i === 9 ? huge + BigInt(i) : BigInt(i)))],
      ['kairos_complex', Array.from({ length: 23 }, (_, i) => encodeComplex(i, -i))],
      ['kairos_string', Array.from({ length: 23 }, (_, i) => encodeString(`s${i}`))],
      [
        'kairos_legacy',
        Array.from({ length: 23 }, (_, i) => (i % 7 < 4 ? encodeLegacyLong(i) : encodeLegacyFloat(i + 0.5))),
        (ts) => encodeLegacyRowColumn(0, ts, ts % 7 >= 4),
      ],
    ];
    for (const [dataType, values, columnOf] of cases) {
      const whole = build(dataType, values, 8, columnOf);
      for (const first of [1, 2, 3, 5]) {
        const grown = build(dataType, values, 8, columnOf, first);
        expect(grown.map(plain), `${dataType} from ${first}`).toEqual(whole.map(plain));
      }
    }
  });

  it('allocates a one-point partition no more than its first capacity', () => {
    const [only] = build('kairos_double', [encodeDouble(7)], 4096, undefined, 4);
    expect(only!.timestamps.buffer.byteLength).toBe(4 * 8);
    expect((only as NumberSlice).values.buffer.byteLength).toBe(4 * 8);
  });

  it('hands out nothing when no cell was added', () => {
    expect(build('kairos_double', [], 4096)).toEqual([]);
  });
});
