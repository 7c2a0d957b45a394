// The k-way merge: KairosDB's order (time, value, series rank), lazy opening at row bounds, and stopping cleanly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NumberSlice, Slice } from '../model/series.js';
import type { RowKey } from '../store/store.js';
import { mergeRuns, type MergeInput } from './merge.js';
import type { Order } from './points.js';

const KEY: RowKey = { metric: 'm', rowTime: 0, dataType: 'kairos_double', tags: { host: 'a' } };

/** A scan of [ts, value] points (in stream order) in pages, recording whether it was opened and closed. */
function scan(points: readonly (readonly [number, number])[], pageSize: number, log: string[] = [], name = '') {
  return async function* (): AsyncGenerator<Slice> {
    log.push(`open ${name}`);
    try {
      for (let i = 0; i < points.length; i += pageSize) {
        const page = points.slice(i, i + pageSize);
        const slice: NumberSlice = {
          key: KEY,
          kind: 'double',
          timestamps: Float64Array.from(page, (p) => p[0]),
          values: Float64Array.from(page, (p) => p[1]),
        };
        yield slice;
      }
    } finally {
      log.push(`close ${name}`);
    }
  };
}

async function merged(inputs: MergeInput[], order: Order = 'asc') {
  const out: [number, number, number][] = [];
  let runs = 0;
  await mergeRuns(inputs, order, (slice, from, to, rank) => {
    runs++;
    for (let i = from; i < to; i++) out.push([slice.timestamps[i]!, (slice as NumberSlice).values[i]!, rank]);
  });
  return { out, runs };
}

const input = (
  points: [number, number][],
  rank: number,
  pageSize = 100,
  fromMs = -Infinity,
  toMs = Infinity,
  log?: string[],
): MergeInput => ({
  open: scan(points, pageSize, log, String(rank)),
  fromMs,
  toMs,
  rank,
});

describe('mergeRuns', () => {
  it('orders equal times by value, then by series rank, like KairosDB', async () => {
    const { out } = await merged([
      input(
        [
          [1, 20],
          [2, 5],
        ],
        0,
      ),
      input(
        [
          [1, 10],
          [2, 5],
        ],
        1,
      ),
      input([[1, 15]], 2),
    ]);
    expect(out).toEqual([
      [1, 10, 1],
      [1, 15, 2],
      [1, 20, 0],
      [2, 5, 0],
      [2, 5, 1],
    ]);
  });

  it('reverses all three in descending order', async () => {
    const { out } = await merged(
      [
        input(
          [
            [2, 5],
            [1, 20],
          ],
          0,
        ),
        input(
          [
            [2, 5],
            [1, 10],
          ],
          1,
        ),
      ],
      'desc',
    );
    expect(out).toEqual([
      [2, 5, 1],
      [2, 5, 0],
      [1, 20, 0],
      [1, 10, 1],
    ]);
  });

  it('passes partitions that do not overlap through whole, one run per slice', async () => {
    const { out, runs } = await merged([
      input(
        [
          [1, 1],
          [2, 2],
        ],
        0,
        100,
        0,
        9,
      ),
      input(
        [
          [10, 3],
          [11, 4],
        ],
        0,
        100,
        10,
        19,
      ),
    ]);
    expect(out.map(([t]) => t)).toEqual([1, 2, 10, 11]);
    expect(runs).toBe(2);
  });

  it('opens a partition only when the merge reaches its start, and closes every opened scan', async () => {
    const log: string[] = [];
    const seen: string[] = [];
    await mergeRuns(
      [
        input(
          [
            [1, 1],
            [5, 2],
          ],
          0,
          1,
          0,
          9,
          log,
        ),
        input([[12, 3]], 1, 1, 10, 19, log),
        input([[3, 4]], 2, 1, 0, 9, log),
      ],
      'asc',
      (slice, from) => {
        seen.push(`${slice.timestamps[from]}`);
        log.push(`run ${slice.timestamps[from]}`);
      },
    );
    expect(seen).toEqual(['1', '3', '5', '12']);
    expect(log.indexOf('open 1')).toBeGreaterThan(log.indexOf('run 5'));
    expect(log.filter((l) => l.startsWith('close')).sort()).toEqual(['close 0', 'close 1', 'close 2']);
  });

  it('keeps `concurrency` first reads in flight as a window: a slow one holds up only its own slot', async () => {
    const log: string[] = [];
    let inFlight = 0;
    let most = 0;
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const inputs: MergeInput[] = Array.from({ length: 6 }, (_, rank) => ({
      open: async function* (): AsyncGenerator<Slice> {
        inFlight++;
        most = Math.max(most, inFlight);
        log.push(`start ${rank}`);
        if (rank === 0) await slow;
        else await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        log.push(`first ${rank}`);
        yield {
          key: KEY,
          kind: 'double',
          timestamps: Float64Array.of(rank),
          values: Float64Array.of(rank),
        } satisfies NumberSlice;
      },
      fromMs: 0,
      toMs: 10,
      rank,
    }));
    const done = mergeRuns(inputs, 'asc', () => undefined, { concurrency: 2 });
    // Input 0 holds its slot; the other slot goes through inputs 1 to 5 meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.filter((entry) => entry.startsWith('first'))).toEqual([
      'first 1',
      'first 2',
      'first 3',
      'first 4',
      'first 5',
    ]);
    releaseSlow();
    await done;
    expect(most).toBe(2);
  });

  it('stops when the handler returns false, closing the scans it opened', async () => {
    const log: string[] = [];
    const done = await mergeRuns(
      [
        input(
          [
            [1, 1],
            [2, 2],
            [3, 3],
          ],
          0,
          1,
          0,
          9,
          log,
        ),
      ],
      'asc',
      (slice, from) => slice.timestamps[from] !== 2 || false,
    );
    expect(done).toBe(false);
    expect(log).toEqual(['open 0', 'close 0']);
  });

  it('stops when the gate refuses a slice', async () => {
    let admitted = 0;
    const out: number[] = [];
    const done = await mergeRuns(
      [
        input(
          [
            [1, 1],
            [2, 2],
            [3, 3],
          ],
          0,
          1,
        ),
        input([[1, 5]], 1, 1),
      ],
      'asc',
      (slice, from, to) => {
        for (let i = from; i < to; i++) out.push(slice.timestamps[i]!);
      },
      { gate: (slice) => (admitted++ < 3 ? slice : undefined) },
    );
    expect(done).toBe(false);
    expect(out).toEqual([1, 1, 2]);
  });

  it('gives the same order as sorting every point, whatever the pages and bounds', async () => {
    const partition = fc.record({
      rank: fc.integer({ min: 0, max: 3 }),
      rowTime: fc.integer({ min: -40, max: 40 }),
      offsets: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 10 }),
      values: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 10, maxLength: 10 }),
      pageSize: fc.integer({ min: 1, max: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(partition, { maxLength: 8 }),
        fc.constantFrom<Order>('asc', 'desc'),
        async (partitions, order) => {
          // Each rank is one series: its partitions hold distinct times, as a store's rows do.
          const taken = new Set<string>();
          const expected: [number, number, number][] = [];
          const inputs = partitions.map((p) => {
            const points = p.offsets
              .map((o, i) => [p.rowTime + o, p.values[i]!] as [number, number])
              .filter(([t]) => !taken.has(`${p.rank}:${t}`) && taken.add(`${p.rank}:${t}`))
              .sort((a, b) => (order === 'asc' ? a[0] - b[0] : b[0] - a[0]));
            for (const [t, v] of points) expected.push([t, v, p.rank]);
            return input(points, p.rank, p.pageSize, p.rowTime, p.rowTime + 9);
          });
          const sign = order === 'asc' ? 1 : -1;
          expected.sort((a, b) => sign * (a[0] - b[0] || a[1] - b[1] || a[2] - b[2]));
          expect((await merged(inputs, order)).out).toEqual(expected);
        },
      ),
    );
  });
});
