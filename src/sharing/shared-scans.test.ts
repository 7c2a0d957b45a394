// SharedScans: identical partition reads of one source at once are one read; a reader that falls behind reads on alone
// from exactly where it was; a reader that leaves is gone, and the source's read stops with the last.
import { describe, expect, it } from 'vitest';
import type { Partition, Slice } from '../model/series.js';
import type { ReadOptions } from '../model/read-options.js';
import type { Source } from '../sources/source.js';
import { SharedScans } from './shared-scans.js';
import { WriteGenerations } from './write-generations.js';

const KEY: Partition = { metric: 'm', rowTime: 0, dataType: 'kairos_double', tags: { host: 'a' }, kind: 'double' };

/**
 * A source named `name` whose partition holds `timestamps` (values = index), paged by `pageSize`, that counts its
 * reads and can hold each page until `release` is called.
 */
function pagedStore(timestamps: number[], hold = false, name = 'primary') {
  const scans: { start: number; end: number; options: ReadOptions }[] = [];
  const signals: AbortSignal[] = [];
  let waiting: (() => void)[] = [];
  const store = {
    name,
    read(_key: Partition, start: number, end: number, options: ReadOptions = {}): AsyncIterable<Slice> {
      scans.push({ start, end, options });
      if (options.signal) signals.push(options.signal);
      return (async function* () {
        const asc = (options.order ?? 'asc') === 'asc';
        let rows = timestamps.map((t, i) => [t, i] as const).filter(([t]) => t >= start && t <= end);
        if (!asc) rows = rows.reverse();
        if (options.limit) rows = rows.slice(0, options.limit);
        const size = options.pageSize ?? 1000;
        for (let p = 0; p < rows.length; p += size) {
          if (hold) await new Promise<void>((resolve) => waiting.push(resolve));
          options.signal?.throwIfAborted();
          const page = rows.slice(p, p + size);
          yield {
            key: KEY,
            kind: 'double',
            timestamps: Float64Array.from(page.map(([t]) => t)),
            values: Float64Array.from(page.map(([, i]) => i)),
          } satisfies Slice;
        }
      })();
    },
  };
  const release = () => {
    const all = waiting;
    waiting = [];
    for (const resolve of all) resolve();
  };
  return { store: store as unknown as Source, scans, signals, release, pending: () => waiting.length };
}

async function readAll(scan: AsyncIterable<Slice>): Promise<[number, number][]> {
  const points: [number, number][] = [];
  for await (const slice of scan)
    for (let i = 0; i < slice.timestamps.length; i++) points.push([slice.timestamps[i]!, slice.values[i] as number]);
  return points;
}

const range = (n: number, step = 1) => Array.from({ length: n }, (_, i) => i * step);

describe('SharedScans', () => {
  it('reads identical partition reads that run at the same time once, and different ones apart', async () => {
    const source = pagedStore(range(2500));
    const generations = new WriteGenerations();
    const shared = new SharedScans(generations);
    const other = pagedStore(range(2500), false, 'archive');
    const [same, elsewhere] = await Promise.all([
      Promise.all([0, 1, 2].map(() => readAll(shared.scan(source.store, KEY, 0, 9999, { pageSize: 1000 })))),
      readAll(shared.scan(other.store, KEY, 0, 9999, { pageSize: 1000 })),
    ]);
    expect(same[1]).toEqual(same[0]);
    expect(same[2]).toEqual(same[0]);
    // The same partition of another source is another read.
    expect([same[0]!.length, source.scans.length, shared.joins, elsewhere.length, other.scans.length]).toEqual([
      2500, 1, 2, 2500, 1,
    ]);
    // Another range, other options, or a write to the metric in between: reads of their own.
    await Promise.all([
      readAll(shared.scan(source.store, KEY, 1, 9999, { pageSize: 1000 })),
      readAll(shared.scan(source.store, KEY, 0, 9999, { pageSize: 10 })),
      readAll(shared.scan(source.store, KEY, 0, 9999, { pageSize: 1000, order: 'desc' })),
    ]);
    expect(source.scans.length).toBe(4);
    const before = shared.scan(source.store, KEY, 0, 9999, { pageSize: 1000 })[Symbol.asyncIterator]();
    await before.next();
    generations.bump('primary', 'm');
    await readAll(shared.scan(source.store, KEY, 0, 9999, { pageSize: 1000 }));
    await before.return!();
    expect([source.scans.length, shared.size]).toEqual([6, 0]);
  });

  it.each([
    ['ascending', 'asc' as const, 0, 999, 3],
    ['descending', 'desc' as const, 0, 999, 3],
    ['ascending, limited', 'asc' as const, 30_001, 999, 3],
    ['in pages of one point, both points of a time taken', 'asc' as const, 0, 1, 4],
  ])(
    'lets a reader that falls behind read on alone from where it was, %s, two points at one time included',
    async (_, order, limit, pageSize, pagesTaken) => {
      // Pairs of points at one time, as a legacy row can hold them: resuming must skip exactly those already taken.
      const timestamps = range(40_000).map((i) => Math.floor(i / 2) * 10);
      const source = pagedStore(timestamps);
      const shared = new SharedScans(new WriteGenerations());
      const options: ReadOptions = { pageSize, order, ...(limit ? { limit } : {}) };
      const expected = await readAll(source.store.read(KEY, 0, 1e9, options));
      const scansBefore = source.scans.length;
      const fast = shared.scan(source.store, KEY, 0, 1e9, options)[Symbol.asyncIterator]();
      const slow = shared.scan(source.store, KEY, 0, 1e9, options)[Symbol.asyncIterator]();
      const slowPoints: [number, number][] = [];
      const take = async (it: AsyncIterator<Slice>, into?: [number, number][]) => {
        const next = await it.next();
        if (!next.done && into)
          for (let i = 0; i < next.value.timestamps.length; i++)
            into.push([next.value.timestamps[i]!, next.value.values[i] as number]);
        return next.done;
      };
      // The slow reader takes a few pages, then the fast one reads to the end, far ahead of it.
      for (let i = 0; i < pagesTaken; i++) await take(slow, slowPoints);
      const fastPoints: [number, number][] = [];
      while (!(await take(fast, fastPoints)));
      while (!(await take(slow, slowPoints)));
      expect(fastPoints).toEqual(expected);
      expect(slowPoints).toEqual(expected);
      // One shared read, and one of the slow reader's own from where it fell behind.
      expect(source.scans.length - scansBefore).toBe(2);
      const resumed = source.scans.at(-1)!;
      const lastTaken = slowPoints[pagesTaken * pageSize - 1]![0];
      expect(order === 'asc' ? resumed.start : resumed.end).toBe(lastTaken);
    },
  );

  it('lets a reader leave when its signal aborts, and stops the store read when the last one leaves', async () => {
    const source = pagedStore(range(3000), true);
    const shared = new SharedScans(new WriteGenerations());
    const first = new AbortController();
    const second = new AbortController();
    const a = readAll(shared.scan(source.store, KEY, 0, 9999, { pageSize: 1000, signal: first.signal }));
    const b = readAll(shared.scan(source.store, KEY, 0, 9999, { pageSize: 1000, signal: second.signal }));
    await expect.poll(() => source.pending()).toBe(1);
    first.abort(new Error('first client gone'));
    await expect(a).rejects.toThrow('first client gone');
    expect(source.signals[0]!.aborted).toBe(false);
    second.abort(new Error('second client gone'));
    await expect(b).rejects.toThrow('second client gone');
    expect(source.signals[0]!.aborted).toBe(true);
    source.release();
    expect(shared.size).toBe(0);
  });
});
