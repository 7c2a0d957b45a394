import { describe, expect, it } from 'vitest';
import type { RowKey, Slice } from '../store/store.js';
import { ReadAhead } from './read-ahead.js';

const KEY: RowKey = { metric: 'm', rowTime: 0, dataType: 'kairos_long', tags: { h: 'a' } };

/** Scans of two one-point pages each that record when each page was asked for. */
function scans(count: number, asked: string[], ended: number[]) {
  return Array.from({ length: count }, (_, k) => () =>
    (async function* (): AsyncGenerator<Slice> {
      try {
        for (let page = 0; page < 2; page++) {
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

describe('ReadAhead', () => {
  it('asks for the first page of the next scans when one opens, and hands each scan over whole', async () => {
    const asked: string[] = [];
    const ahead = new ReadAhead(scans(5, asked, []), 2);
    const first = ahead.open(0);
    // Scans 1 and 2 asked for their first page; scan 0 asks when it is read.
    expect(asked).toEqual(['1.0', '2.0']);
    expect(await drain(first)).toEqual([0, 1]);
    expect(await drain(ahead.open(1))).toEqual([10, 11]);
    expect(asked).toEqual(['1.0', '2.0', '0.0', '0.1', '3.0', '1.1']);
    expect(await drain(ahead.open(2))).toEqual([20, 21]);
    expect(await drain(ahead.open(3))).toEqual([30, 31]);
    expect(await drain(ahead.open(4))).toEqual([40, 41]);
    await ahead.close();
  });

  it('ends the scans it started that the engine never reached', async () => {
    const ended: number[] = [];
    const ahead = new ReadAhead(scans(6, [], ended), 3);
    await drain(ahead.open(0));
    await ahead.close();
    expect(ended.sort()).toEqual([0, 1, 2, 3]);
  });

  it('lets a failed early scan fail when it is reached, not before', async () => {
    const failing = [() => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('node down')) }) })];
    const ahead = new ReadAhead([() => (async function* (): AsyncGenerator<Slice> {})(), ...failing], 1);
    expect(await drain(ahead.open(0))).toEqual([]);
    await expect(drain(ahead.open(1))).rejects.toThrow('node down');
  });
});
