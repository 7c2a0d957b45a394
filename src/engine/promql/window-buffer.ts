/**
 * The points of one series inside the current window, as range functions see them: appended in time order, dropped
 * from the front as the window moves, so a series costs one window of memory however long the query's range.
 */
import type { Window } from './functions/function-types.js';
import type { Labels } from './labels.js';
import { isStale } from './values.js';
import type { SampleChunk } from './series-access.js';

class WindowBuffer {
  timestampsMs = new Float64Array(32);
  values = new Float64Array(32);
  from = 0;
  to = 0;

  push(t: number, v: number): void {
    if (this.to === this.timestampsMs.length) this.makeRoom();
    this.timestampsMs[this.to] = t;
    this.values[this.to++] = v;
  }

  dropThrough(limitMs: number): void {
    while (this.from < this.to && this.timestampsMs[this.from]! <= limitMs) this.from++;
  }

  /** Moves the live points to the front; grows only when they fill more than half the buffer. */
  private makeRoom(): void {
    const live = this.to - this.from;
    if (live * 2 > this.timestampsMs.length) {
      const ts = new Float64Array(this.timestampsMs.length * 2);
      const vs = new Float64Array(this.values.length * 2);
      ts.set(this.timestampsMs.subarray(this.from, this.to));
      vs.set(this.values.subarray(this.from, this.to));
      this.timestampsMs = ts;
      this.values = vs;
    } else {
      this.timestampsMs.copyWithin(0, this.from, this.to);
      this.values.copyWithin(0, this.from, this.to);
    }
    this.from = 0;
    this.to = live;
  }
}

/**
 * Paces a loop over steps: called with the units of work done since the last call, as EvalMeter.pace. Windows and
 * lookbacks cost one unit per sample they take in, and a step one unit plus the samples its window holds.
 */
export type Pace = (units: number) => Promise<void> | undefined;

const noPace: Pace = () => undefined;

/**
 * Units a loop below does before it reports them: its hot part stays a plain loop with no call and no await in it,
 * and a batch is a small part of a slice however costly its units.
 */
const BATCH = 1024;

/**
 * Calls `visit` with each step's window (end - range, end] of one series, where `times` (non-decreasing) are the
 * steps' window ends; staleness markers are left out, and empty windows skipped.
 */
export async function forEachWindow(
  labels: Labels,
  chunks: AsyncIterable<SampleChunk> | Iterable<SampleChunk>,
  times: Float64Array,
  rangeMs: number,
  visit: (step: number, window: Window) => void,
  pace: Pace = noPace,
): Promise<void> {
  const buffer = new WindowBuffer();
  let step = 0;
  /** Visits the current step's window; answers the units it cost. */
  const emit = (): number => {
    const end = times[step]!;
    buffer.dropThrough(end - rangeMs);
    step++;
    if (buffer.to === buffer.from) return 1;
    visit(step - 1, {
      timestampsMs: buffer.timestampsMs,
      values: buffer.values,
      from: buffer.from,
      to: buffer.to,
      rangeStartMs: end - rangeMs,
      rangeEndMs: end,
      rangeMs,
      labels,
    });
    return 1 + buffer.to - buffer.from;
  };
  for await (const chunk of chunks) {
    const ts = chunk.timestampsMs;
    const n = ts.length;
    let k = 0;
    while (k < n) {
      let units = 0;
      // A step ends before the next sample: its window is complete. Otherwise the sample joins the window.
      while (k < n && units < BATCH) {
        const t = ts[k]!;
        if (step < times.length && t > times[step]!) units += emit();
        else if (step === times.length) return pace(units);
        else {
          const v = chunk.values[k++]!;
          if (!isStale(v)) buffer.push(t, v);
          units++;
        }
      }
      const turn = pace(units);
      if (turn !== undefined) await turn;
    }
  }
  while (step < times.length) {
    let units = 0;
    while (step < times.length && units < BATCH) units += emit();
    const turn = pace(units);
    if (turn !== undefined) await turn;
  }
}

/** Each step's last sample at or before its time, with that sample's time: what instant selectors read. */
export async function forEachLatest(
  chunks: AsyncIterable<SampleChunk> | Iterable<SampleChunk>,
  times: Float64Array,
  visit: (step: number, timeMs: number, value: number) => void,
  pace: Pace = noPace,
): Promise<void> {
  let step = 0;
  let lastT = Number.NaN;
  let lastV = Number.NaN;
  for await (const chunk of chunks) {
    const ts = chunk.timestampsMs;
    const n = ts.length;
    let k = 0;
    while (k < n) {
      let units = 0;
      while (k < n && units < BATCH) {
        const t = ts[k]!;
        if (step < times.length && t > times[step]!) {
          if (!Number.isNaN(lastT)) visit(step, lastT, lastV);
          step++;
        } else if (step === times.length) return pace(units);
        else {
          lastT = t;
          lastV = chunk.values[k++]!;
        }
        units++;
      }
      const turn = pace(units);
      if (turn !== undefined) await turn;
    }
  }
  while (step < times.length) {
    let units = 0;
    for (; step < times.length && units < BATCH; step++, units++) if (!Number.isNaN(lastT)) visit(step, lastT, lastV);
    const turn = pace(units);
    if (turn !== undefined) await turn;
  }
}
