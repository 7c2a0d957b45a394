/**
 * A point list keeps slices as runs and pushed points in columns of their own; read point by point or run by run,
 * it holds the same points with the same values.
 */
import { describe, expect, it } from 'vitest';
import type { PartitionKey, Slice } from '../model/series.js';
import { PointList, valueAt } from './point-list.js';

const KEY: PartitionKey = { metric: 'm', rowTime: 0, dataType: 'kairos_long', tags: { host: 'a' } };
const BIG = 2n ** 60n + 1n;

function longSlice(timestamps: number[], exact: bigint[]): Slice {
  return {
    key: KEY,
    kind: 'long',
    timestamps: Float64Array.from(timestamps),
    values: Float64Array.from(exact, Number),
    exact: BigInt64Array.from(exact),
  };
}

/** The list as [time, kind, value] triples, from its runs. */
const byRuns = (list: PointList) =>
  list.runs.flatMap(({ columns, from, to }) =>
    Array.from({ length: to - from }, (_, k) => [
      columns.timestamps[from + k],
      columns.kind,
      valueAt(columns, from + k),
    ]),
  );
const byPoint = (list: PointList) => list.timestamps.map((t, i) => [t, list.kinds[i], list.values[i]]);

describe('PointList', () => {
  it('keeps slices and pushed points in order, each value of its own type', () => {
    const list = new PointList();
    list.push(1, 'double', 1.5);
    list.push(2, 'double', 2.5);
    list.appendSlice(longSlice([3, 4, 5, 6], [3n, BIG, -BIG, 6n]), 1, 3);
    list.push(7, 'long', 7);
    list.push(8, 'long', BIG);
    list.push(9, 'long', 9);
    list.push(10, 'string', 'x');
    list.push(11, 'complex', { real: 1, imaginary: -1 });
    list.push(12, 'null', null);
    list.push(13, 'double', 13);
    list.appendSlice(longSlice([14], [14n]), 1, 1);
    const expected = [
      [1, 'double', 1.5],
      [2, 'double', 2.5],
      [4, 'long', BIG],
      [5, 'long', -BIG],
      [7, 'long', 7],
      [8, 'long', BIG],
      [9, 'long', 9],
      [10, 'string', 'x'],
      [11, 'complex', { real: 1, imaginary: -1 }],
      [12, 'null', null],
      [13, 'double', 13],
    ];
    expect(list.length).toBe(11);
    expect(byPoint(list)).toEqual(expected);
    expect(byRuns(list)).toEqual(expected);
    // A pushed kind continues its run until another kind or a kept slice comes between; short slices are copied.
    expect(list.runs.map((run) => [run.columns.kind, run.from, run.to])).toEqual([
      ['double', 0, 2],
      ['long', 0, 5],
      ['string', 0, 1],
      ['complex', 0, 1],
      ['null', 0, 1],
      ['double', 0, 1],
    ]);
  });

  it('keeps a long run of a slice without copying it, and copies a short one', () => {
    const long = longSlice(
      Array.from({ length: 40 }, (_, i) => i),
      Array.from({ length: 40 }, (_, i) => (i === 10 ? BIG : BigInt(i))),
    );
    const list = new PointList();
    list.appendSlice(long, 8);
    list.appendSlice(long, 0, 31);
    list.appendSlice(long, 0, 32);
    expect(list.runs.map((run) => [run.columns === long, run.from, run.to])).toEqual([
      [true, 8, 40],
      [false, 0, 31],
      [true, 0, 32],
    ]);
    expect(list.timestamps).toEqual([
      ...Array.from({ length: 32 }, (_, i) => 8 + i),
      ...Array.from({ length: 31 }, (_, i) => i),
      ...Array.from({ length: 32 }, (_, i) => i),
    ]);
    // Beyond ±2^53 a long is its exact bigint, kept or copied.
    expect([list.values[2], list.values[32 + 10], list.values[63 + 10], list.values[3]]).toEqual([BIG, BIG, BIG, 11]);
  });

  it('makes its per-point arrays again after an append', () => {
    const list = new PointList();
    list.push(1, 'double', 1);
    expect(list.timestamps).toEqual([1]);
    list.push(2, 'double', 2);
    list.appendSlice(longSlice([3], [3n]));
    expect(byPoint(list)).toEqual([
      [1, 'double', 1],
      [2, 'double', 2],
      [3, 'long', 3],
    ]);
  });
});

describe('retimed', () => {
  it('moves every point, a kept slice run and pushed points alike, and leaves the slice as it was', () => {
    const times = Array.from({ length: 40 }, (_, i) => 1000 + i);
    const exact = times.map((t) => (t === 1039 ? BIG : BigInt(t)));
    const slice = longSlice(times, exact);
    const list = new PointList();
    list.appendSlice(slice, 2, 40);
    list.push(5000, 'string', 'text');
    list.push(5001, 'null', null);
    const moved = list.retimed((ms) => ms + 10);
    expect(byRuns(moved)).toEqual(byRuns(list).map(([t, kind, value]) => [(t as number) + 10, kind, value]));
    expect(moved.length).toBe(40);
    expect(moved.values[37]).toBe(BIG);
    expect(Array.from(slice.timestamps)).toEqual(times);
    expect(list.timestamps[0]).toBe(1002);
  });
});
