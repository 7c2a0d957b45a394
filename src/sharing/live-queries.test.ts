/**
 * Subscribers of one computation that read every update are handed the same update object (one per answer), which the
 * GraphQL front end executes and encodes once for all of them; a subscriber that fell behind gets its own update
 * holding every change since it last read.
 */
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { PointList } from '../engine/point-list.js';
import { LiveQueries } from './live-queries.js';
import type { LiveAnswer, LiveUpdate } from './live-update.js';
import { WriteGenerations } from './write-generations.js';

interface Item {
  readonly name: string;
  readonly points: PointList;
}

function item(name: string, points: readonly [number, number][]): Item {
  const list = new PointList();
  for (const [t, v] of points) list.push(t, 'double', v);
  return { name, points: list };
}

const open: LiveQueries[] = [];
afterEach(() => {
  for (const live of open.splice(0)) live.close();
});

/** A live query whose answers are the ones given, in turn; a bump of `m` runs it again. */
function setup(answers: readonly (readonly Item[])[]) {
  const generations = new WriteGenerations();
  const live = new LiveQueries({
    pollMs: 3_600_000,
    maxSubscriptions: 10,
    generations,
    log: pino({ level: 'silent' }),
  });
  open.push(live);
  let runs = 0;
  const query = {
    key: 'q',
    scopes: ['s\u0000m'],
    run: async (): Promise<LiveAnswer<Item>> => {
      const series = answers[Math.min(runs++, answers.length - 1)]!;
      return { series, startMs: 0, endMs: 1000, statistics: { run: runs } };
    },
    seriesKey: (series: Item) => series.name,
  };
  return {
    subscribe: () => live.subscribe(query),
    write: () => generations.bumpScope('s\u0000m'),
    runs: () => runs,
  };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 5));
const pointsOf = (update: LiveUpdate<Item>) =>
  update.changes.map((change) => [change.key, change.fromMs, [...change.points.timestamps]]);

it('hands subscribers that read every update the same snapshot and update objects, built once per answer', async () => {
  const { subscribe, write } = setup([
    [item('a', [[0, 1]]), item('b', [[0, 2]])],
    [item('a', [[0, 1]]), item('b', [[0, 3]])],
  ]);
  const first = subscribe();
  const second = subscribe();
  const [s1, s2] = await Promise.all([first.next(), second.next()]);
  expect(s1.value).toBe(s2.value);
  expect(s1.value!.kind).toBe('SNAPSHOT');
  expect(pointsOf(s1.value!)).toEqual([
    ['a', null, [0]],
    ['b', null, [0]],
  ]);

  write();
  const [u1, u2] = await Promise.all([first.next(), second.next()]);
  expect(u1.value).toBe(u2.value);
  expect(u1.value!.kind).toBe('UPDATE');
  expect(pointsOf(u1.value!)).toEqual([['b', 0, [0]]]);
  expect(u1.value!.statistics).toEqual({ run: 2 });

  // One joining now gets the latest answer's snapshot: a new object, shared with any other joining now.
  const third = subscribe();
  const fourth = subscribe();
  const [s3, s4] = await Promise.all([third.next(), fourth.next()]);
  expect(s3.value).toBe(s4.value);
  expect(s3.value).not.toBe(s1.value);
  expect(s3.value!.statistics).toEqual({ run: 2 });
});

it('gives a subscriber that fell behind its own update of every change since it last read', async () => {
  const { subscribe, write, runs } = setup([
    [item('a', [[0, 1]]), item('b', [[0, 1]])],
    [item('a', [[0, 2]]), item('b', [[0, 1]])],
    [
      item('a', [[0, 2]]),
      item('b', [
        [0, 1],
        [10, 5],
      ]),
    ],
    [
      item('a', [[0, 3]]),
      item('b', [
        [0, 1],
        [10, 5],
      ]),
    ],
  ]);
  const reader = subscribe();
  const laggard = subscribe();
  await Promise.all([reader.next(), laggard.next()]);

  write();
  await settled();
  const first = await reader.next();
  expect(pointsOf(first.value!)).toEqual([['a', 0, [0]]]);
  write();
  await settled();
  expect(runs()).toBe(3);
  const second = await reader.next();
  expect(pointsOf(second.value!)).toEqual([['b', 10, [10]]]);

  // The laggard read neither: one update holds both changes, and it is its own.
  const caughtUp = await laggard.next();
  expect(caughtUp.value).not.toBe(first.value);
  expect(caughtUp.value).not.toBe(second.value);
  expect(pointsOf(caughtUp.value!)).toEqual([
    ['a', 0, [0]],
    ['b', 10, [10]],
  ]);

  // Both read everything now: the next update is shared again.
  write();
  await settled();
  const [r, l] = await Promise.all([reader.next(), laggard.next()]);
  expect(r.value).toBe(l.value);
  expect(pointsOf(r.value!)).toEqual([['a', 0, [0]]]);
});
