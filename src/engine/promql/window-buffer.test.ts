/**
 * Windows and latest samples over chunked series: the same answers whatever the chunking, stale markers left out of
 * windows but seen by the latest-sample walk (where they end a series).
 */
import { describe, expect, it } from 'vitest';
import type { SampleChunk } from './series-access.js';
import { STALE_NAN } from './values.js';
import { forEachLatest, forEachWindow } from './window-buffer.js';

/** Points at 10, 20, ..., 100 (value = time), a stale marker at 50, cut into chunks of `size`. */
function chunks(size: number): SampleChunk[] {
  const ts = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
  const out: SampleChunk[] = [];
  for (let i = 0; i < ts.length; i += size) {
    const part = ts.slice(i, i + size);
    out.push({
      timestampsMs: Float64Array.from(part),
      values: Float64Array.from(part.map((t) => (t === 50 ? STALE_NAN : t))),
    });
  }
  return out;
}

async function windows(size: number, times: number[], rangeMs: number): Promise<string[]> {
  const seen: string[] = [];
  await forEachWindow([], chunks(size), Float64Array.from(times), rangeMs, (step, w) =>
    seen.push(`${step}:${Array.from(w.values.subarray(w.from, w.to)).join(',')}`),
  );
  return seen;
}

describe('forEachWindow', () => {
  it.each([1, 2, 3, 10])(
    'gives each step its left-open window, stale markers left out (chunks of %i)',
    async (size) => {
      expect(await windows(size, [5, 30, 55, 60, 100, 130], 25)).toEqual([
        '1:10,20,30',
        '2:40',
        '3:40,60',
        '4:80,90,100',
      ]);
    },
  );

  it('skips empty windows and repeats a fixed time for every step (the @ case)', async () => {
    expect(await windows(2, [45, 45, 45], 10)).toEqual(['0:40', '1:40', '2:40']);
    expect(await windows(2, [5, 200], 30)).toEqual([]);
  });
});

describe('forEachLatest', () => {
  it.each([1, 3, 10])('gives each step the last sample at or before it (chunks of %i)', async (size) => {
    const seen: string[] = [];
    await forEachLatest(chunks(size), Float64Array.from([5, 10, 49, 50, 51, 500]), (step, t, v) =>
      seen.push(`${step}:${t}=${Number.isNaN(v) ? 'stale' : v}`),
    );
    expect(seen).toEqual(['1:10=10', '2:40=40', '3:50=stale', '4:50=stale', '5:100=100']);
  });
});

describe('the work they report (the evaluator paces itself by it)', () => {
  it('counts a unit per sample taken in, and per step one plus its window, per chunk and at the last step', async () => {
    const reported: number[] = [];
    const pace = (units: number) => {
      reported.push(units);
      return undefined;
    };
    // One chunk: 10 and 20 taken in, the step at 25 with both (3 units), 30 and 40 taken in, the step at 45 with
    // those two (3 units), and 50 is past the last step.
    await forEachWindow([], chunks(10), Float64Array.from([25, 45]), 20, () => undefined, pace);
    expect(reported).toEqual([2 + 3 + 2 + 3]);
    reported.length = 0;
    // A unit per sample and per step: 10, 20, the step at 25, 30 in the first chunk; 40, the step at 45 in the next.
    await forEachLatest(chunks(3), Float64Array.from([25, 45]), () => undefined, pace);
    expect(reported).toEqual([4, 2]);
  });
});
