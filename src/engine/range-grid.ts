/**
 * The ranges of a range aggregator (`RangeAggregator.java`): range k is [start(k), start(k+1)) with start(k) = the
 * anchor plus k·value units. Fixed units are integer arithmetic on epoch ms; calendar units are wall-clock arithmetic
 * in the zone (plusUnits), computed once per range and cached, so a run of points inside one range costs no date math.
 */
import type { Zone } from 'luxon';
import { isEpochMs, MAX_EPOCH_MS } from '../lib/epoch-ms.js';
import { InputError } from '../model/errors.js';
import { fixedLengthMs, NOMINAL_UNIT_MS, plusUnits, type Duration } from '../model/time-units.js';

/**
 * Why a sampling is refused when one of its range boundaries is needed beyond the one time rule (src/lib/epoch-ms.ts):
 * calendar arithmetic answers NaN there, and no answer may carry such a time.
 */
export const BOUNDARY_BEYOND_RULE = `puts a range boundary outside ${-MAX_EPOCH_MS} to ${MAX_EPOCH_MS} epoch ms, where no time can be computed or answered`;

export class RangeGrid {
  /** The range `locate` found last, and its bounds [lo, hi). */
  k = 0;
  lo = 0;
  hi = Number.NEGATIVE_INFINITY;
  private readonly widthMs: number | undefined;

  constructor(
    readonly anchorMs: number,
    readonly sampling: Duration,
    readonly zone: Zone,
  ) {
    this.widthMs = fixedLengthMs(sampling, zone);
  }

  /**
   * The number of the range holding `t`, and sets k/lo/hi. Ranges before the anchor are counted the same way
   * (KairosDB truncates toward the anchor there, which only a start_time later than the data can reach).
   */
  locate(t: number): number {
    if (t >= this.lo && t < this.hi) return this.k;
    const width = this.widthMs;
    if (width !== undefined) {
      let k = Math.floor((t - this.anchorMs) / width);
      // The division rounds; one step fixes a quotient that landed on the wrong side of an integer.
      if (this.anchorMs + k * width > t) k--;
      else if (this.anchorMs + (k + 1) * width <= t) k++;
      this.set(k, this.anchorMs + k * width, this.anchorMs + (k + 1) * width);
      return k;
    }
    let k = Math.floor((t - this.anchorMs) / (this.sampling.value * NOMINAL_UNIT_MS[this.sampling.unit]));
    let lo = this.startOf(k);
    while (lo > t) lo = this.startOf(--k);
    let hi = this.startOf(k + 1);
    while (hi <= t) {
      lo = hi;
      hi = this.startOf(++k + 1);
    }
    this.set(k, lo, hi);
    return k;
  }

  /**
   * Where range k starts, as a point's time (align_start_time, align_end_time, gaps): refused with an InputError
   * naming `field` when it lies beyond the one time rule. Boundaries that only bound a search may be NaN there.
   */
  pointTimeOf(k: number, field: string): number {
    const ms = this.startOf(k);
    // Shown in wire form, as the client wrote it (KairosDB's units are lower case).
    if (!isEpochMs(ms))
      throw new InputError(
        field,
        { value: this.sampling.value, unit: this.sampling.unit.toLowerCase() },
        BOUNDARY_BEYOND_RULE,
      );
    return ms;
  }

  /** Where range k starts. */
  startOf(k: number): number {
    if (this.widthMs !== undefined) return this.anchorMs + k * this.widthMs;
    // Always from the anchor: Jan 31 + 2 months is Mar 31, while (Jan 31 + 1 month) + 1 month is Mar 29.
    return plusUnits(this.anchorMs, this.sampling.unit, k * this.sampling.value, this.zone);
  }

  private set(k: number, lo: number, hi: number): void {
    this.k = k;
    this.lo = lo;
    this.hi = hi;
  }
}
