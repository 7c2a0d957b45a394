/**
 * What a live update says changed: the earliest time two answers of a series differ, in either order, and the points
 * a change carries from it.
 */
import { expect, it } from 'vitest';
import { PointList } from '../engine/point-list.js';
import { firstDifference, pointsFrom } from './live-diff.js';

function list(points: readonly [number, number | string][]): PointList {
  const out = new PointList();
  for (const [t, v] of points) out.push(t, typeof v === 'string' ? 'string' : 'double', v);
  return out;
}

it('finds the open bucket replaced, buckets appended, points back-filled or deleted, and nothing for the same answer', () => {
  const before = list([
    [0, 1],
    [60, 2],
    [120, 3],
  ]);
  expect(
    firstDifference(
      before,
      list([
        [0, 1],
        [60, 2],
        [120, 3],
      ]),
    ),
  ).toBeUndefined();
  expect(
    firstDifference(
      before,
      list([
        [0, 1],
        [60, 2],
        [120, 4],
      ]),
    ),
  ).toBe(120);
  expect(
    firstDifference(
      before,
      list([
        [0, 1],
        [60, 2],
        [120, 3],
        [180, 1],
      ]),
    ),
  ).toBe(180);
  expect(
    firstDifference(
      before,
      list([
        [0, 1],
        [30, 9],
        [60, 2],
        [120, 3],
      ]),
    ),
  ).toBe(30);
  expect(
    firstDifference(
      before,
      list([
        [0, 1],
        [60, 2],
      ]),
    ),
  ).toBe(120);
  expect(
    firstDifference(
      before,
      list([
        [0, 1],
        [60, 'x'],
        [120, 3],
      ]),
    ),
  ).toBe(60);
});

it('compares oldest first in descending answers, and carries the points from the change in the answer order', () => {
  const before = list([
    [120, 3],
    [60, 2],
    [0, 1],
  ]);
  const after = list([
    [180, 5],
    [120, 4],
    [60, 2],
    [0, 1],
  ]);
  expect(firstDifference(before, after)).toBe(120);
  const carried = pointsFrom(after, 120);
  expect([carried.timestamps, carried.values]).toEqual([
    [180, 120],
    [5, 4],
  ]);
});
