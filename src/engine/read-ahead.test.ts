import { describe, expect, it } from 'vitest';
import { ReadAheadBudget } from '../lib/queued-scan.js';
import type { PartitionKey, Slice } from '../model/series.js';
import { ReadAhead } from './read-ahead.js';

const KEY: PartitionKey = { metric: 'm', rowTime: 0, dataType: 'kairos_long', tags: { h: 'a' } };

/** Scans of `pages` one-point pages each that record when each page was asked for and when the scan ended. */
function scans(count: number, asked: string[], ended: number[], pages = 2) {
  return Array.from(
    { length: count },
    (_, k) => () =>
      (async function* (): AsyncGenerator<Slice> {
        try {
          for (let page = 0; page < pages; page++) {
            asked.push(`${k}.${page}`);
            yield { key: KEY, kind: 'long', timestamps: Float64Array.of(k * 10 + page), values: Float64Array.of(page) };
          }
        } finally {
          ended.push(k);
        }
      })(),
  );
}

async function drain(scan: AsyncIterable<Slice>): Promise<number[]> {
  const seen: number[] = [];
  for await (const slice of scan) seen.push(slice.timestamps[0]!);
  return seen;
}

/** Lets every read under way settle (the scans here never wait on anything but the event loop). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadAhead', () => {
  it('reads the opened scan and the next ones ahead while the budget has room, and hands each scan over whole', async () => {
    const asked: string[] = [];
    const budget = new ReadAheadBudget(100);
    const ahead = new ReadAhead(scans(5, asked, []), 2, budget);
    const first = ahead.open(0);
    // Scans 0, 1 and 2 asked at once, and read on to their ends: many pages in flight, not one.
    expect(asked).toEqual(['0.0', '1.0', '2.0']);
    await settle();
    expect(asked).toEqual(['0.0', '1.0', '2.0', '0.1', '1.1', '2.1']);
    expect(budget.points).toBe(6);
    expect(await drain(first)).toEqual([0, 1]);
    expect(budget.points).toBe(4);
    expect(await drain(ahead.open(1))).toEqual([10, 11]);
    expect(await drain(ahead.open(2))).toEqual([20, 21]);
    expect(await drain(ahead.open(3))).toEqual([30, 31]);
    expect(await drain(ahead.open(4))).toEqual([40, 41]);
    expect(asked.slice(6).sort()).toEqual(['3.0', '3.1', '4.0', '4.1']);
    expect(budget.points).toBe(0);
    await ahead.close();
  });

  it('stops reading ahead when the budget is full and reads on as the engine takes slices', async () => {
    const asked: string[] = [];
    const budget = new ReadAheadBudget(2);
    const ahead = new ReadAhead(scans(3, asked, [], 4), 2, budget);
    const first = ahead.open(0)[Symbol.asyncIterator]();
    await settle();
    // 0.0 arrived with room left, so scan 0 asked for 0.1; 1.0 filled the budget. Each scan had one slice under way
    // when it filled: 4 points held, the budget and one slice for each of 2 of the 3 scans.
    expect(asked).toEqual(['0.0', '1.0', '2.0', '0.1']);
    expect(budget.points).toBe(4);
    await settle();
    expect(asked).toEqual(['0.0', '1.0', '2.0', '0.1']);
    // The engine takes scan 0's two slices: 2 of 2 held is still full, so nothing more is read ahead.
    expect((await first.next()).value!.timestamps[0]).toBe(0);
    expect((await first.next()).value!.timestamps[0]).toBe(1);
    await settle();
    expect(asked).toEqual(['0.0', '1.0', '2.0', '0.1']);
    // Scan 0's queue is empty: the engine waits for it, so it reads whatever the budget says.
    expect((await first.next()).value!.timestamps[0]).toBe(2);
    expect(asked).toEqual(['0.0', '1.0', '2.0', '0.1', '0.2']);
    expect(budget.points).toBe(2);
    // Scans 1 and 2 read on as the engine takes their queued slices.
    expect((await first.next()).value!.timestamps[0]).toBe(3);
    expect(await drain(ahead.open(1))).toEqual([10, 11, 12, 13]);
    expect(await drain(ahead.open(2))).toEqual([20, 21, 22, 23]);
    expect(budget.points).toBe(0);
  });

  it('reads the scan the engine waits for even when the budget is full', async () => {
    const asked: string[] = [];
    const budget = new ReadAheadBudget(0);
    const ahead = new ReadAhead(scans(2, asked, [], 3), 1, budget);
    const opened = ahead.open(0);
    await settle();
    expect(asked).toEqual([]);
    expect(await drain(opened)).toEqual([0, 1, 2]);
    expect(asked).toEqual(['0.0', '0.1', '0.2']);
    expect(await drain(ahead.open(1))).toEqual([10, 11, 12]);
    expect(budget.points).toBe(0);
  });

  it('ends the scans it started that the engine never reached, and gives their points back', async () => {
    const ended: number[] = [];
    const budget = new ReadAheadBudget(1_000);
    const ahead = new ReadAhead(scans(6, [], ended), 3, budget);
    await drain(ahead.open(0));
    await settle();
    expect(budget.points).toBe(6);
    await ahead.close();
    expect(ended.sort()).toEqual([0, 1, 2, 3]);
    expect(budget.points).toBe(0);
  });

  it('ends a scan the engine leaves half read, with its queued slices', async () => {
    const ended: number[] = [];
    const budget = new ReadAheadBudget(1_000);
    const ahead = new ReadAhead(scans(1, [], ended, 5), 1, budget);
    for await (const slice of ahead.open(0)) {
      await settle();
      expect(slice.timestamps[0]).toBe(0);
      break;
    }
    expect(ended).toEqual([0]);
    expect(budget.points).toBe(0);
  });

  it('lets a failed scan fail when the engine reaches the failure, after the slices read before it', async () => {
    const failing = () =>
      (async function* (): AsyncGenerator<Slice> {
        yield { key: KEY, kind: 'long', timestamps: Float64Array.of(5), values: Float64Array.of(1) };
        throw new Error('node down');
      })();
    const ahead = new ReadAhead(
      [() => (async function* (): AsyncGenerator<Slice> {})(), failing],
      1,
      new ReadAheadBudget(100),
    );
    const empty = ahead.open(0);
    await settle();
    expect(await drain(empty)).toEqual([]);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const slice of ahead.open(1)) seen.push(slice.timestamps[0]!);
      })(),
    ).rejects.toThrow('node down');
    expect(seen).toEqual([5]);
  });
});
