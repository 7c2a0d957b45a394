/**
 * Filling gives every series the union of the answer's timestamps.
 */
import { describe, expect, it } from 'vitest';
import { fillPoints } from './fill.js';
import { PointList } from './point-list.js';

function list(points: [number, number][]): PointList {
  const out = new PointList();
  for (const [t, v] of points) out.push(t, 'long', v);
  return out;
}

const plain = (l: PointList) => l.timestamps.map((t, i) => [t, l.kinds[i], l.values[i]]);

describe('fillPoints', () => {
  const a = list([
    [1, 10],
    [3, 30],
  ]);
  const b = list([
    [2, 2],
    [3, 3],
    [4, 4],
  ]);

  it('leaves series alone with none', () => {
    expect(fillPoints([a, b], 'none', 'asc')).toEqual([a, b]);
  });

  it.each([
    [
      'null',
      [
        [1, 'long', 10],
        [2, 'null', null],
        [3, 'long', 30],
        [4, 'null', null],
      ],
      [
        [1, 'null', null],
        [2, 'long', 2],
        [3, 'long', 3],
        [4, 'long', 4],
      ],
    ],
    [
      'zero',
      [
        [1, 'long', 10],
        [2, 'double', 0],
        [3, 'long', 30],
        [4, 'double', 0],
      ],
      [
        [1, 'double', 0],
        [2, 'long', 2],
        [3, 'long', 3],
        [4, 'long', 4],
      ],
    ],
    [
      'previous',
      [
        [1, 'long', 10],
        [2, 'long', 10],
        [3, 'long', 30],
        [4, 'long', 30],
      ],
      [
        [1, 'null', null],
        [2, 'long', 2],
        [3, 'long', 3],
        [4, 'long', 4],
      ],
    ],
  ] as const)('fills with %s', (mode, expectA, expectB) => {
    const [fa, fb] = fillPoints([a, b], mode, 'asc');
    expect(plain(fa!)).toEqual(expectA);
    expect(plain(fb!)).toEqual(expectB);
  });

  it('follows a descending answer and keeps points that share a time', () => {
    const c = list([
      [3, 1],
      [3, 2],
      [1, 5],
    ]);
    const d = list([[2, 7]]);
    const [fc, fd] = fillPoints([c, d], 'null', 'desc');
    expect(plain(fc!)).toEqual([
      [3, 'long', 1],
      [3, 'long', 2],
      [2, 'null', null],
      [1, 'long', 5],
    ]);
    expect(plain(fd!)).toEqual([
      [3, 'null', null],
      [2, 'long', 7],
      [1, 'null', null],
    ]);
  });
});
