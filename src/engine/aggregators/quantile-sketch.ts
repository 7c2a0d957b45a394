/**
 * A bounded, deterministic quantile sketch for ranges too large to keep whole: values fall into logarithmic bins
 * (DDSketch's scheme), so any value read back is within 0.5% of a value of that rank. Bin counts add up, so the
 * sketch is the same whatever order the values arrived in, and it never holds more than 2 × 4096 bins.
 */

/** Relative accuracy of the value returned for a rank. */
export const RELATIVE_ACCURACY = 0.005;
/** Bins kept per sign; beyond that the bins nearest zero merge (values spanning ~18 decades). */
const MAX_BINS = 4096;

const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);

export class QuantileSketch {
  private readonly positive = new BinStore();
  private readonly negative = new BinStore();
  private zeros = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;

  get count(): number {
    return this.positive.total + this.negative.total + this.zeros;
  }

  add(value: number): void {
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    if (value > 0) this.positive.add(binOf(value));
    else if (value < 0) this.negative.add(binOf(-value));
    else this.zeros++;
  }

  /** The value of 0-based rank `r` in sorted order, within RELATIVE_ACCURACY; the extremes are exact. */
  valueAt(r: number): number {
    if (r <= 0) return this.min;
    if (r >= this.count - 1) return this.max;
    let value: number;
    const negatives = this.negative.total;
    if (r < negatives) value = -this.negative.valueAtFromTop(r);
    else if (r < negatives + this.zeros) value = 0;
    else value = this.positive.valueAtFromBottom(r - negatives - this.zeros);
    return Math.min(this.max, Math.max(this.min, value));
  }
}

function binOf(magnitude: number): number {
  return Math.ceil(Math.log(magnitude) / LOG_GAMMA);
}

/** The value that represents bin i: every magnitude in the bin is within RELATIVE_ACCURACY of it. */
function binValue(i: number): number {
  return (2 * GAMMA ** i) / (GAMMA + 1);
}

/** Counts of consecutive bins in a dense array that slides and grows as bins appear. */
class BinStore {
  total = 0;
  private counts = new Float64Array(0);
  /** Bin index of counts[0]. */
  private base = 0;
  private lowest = 0;
  private highest = 0;

  add(bin: number): void {
    if (this.total === 0) {
      this.lowest = this.highest = bin;
    } else if (bin > this.highest) {
      this.highest = bin;
      const floor = bin - MAX_BINS + 1;
      if (this.lowest < floor) this.collapseBelow(floor);
    }
    // Bins nearest zero merge into the lowest kept one, so the final state depends only on the values added.
    const kept = Math.max(bin, this.highest - MAX_BINS + 1);
    if (kept < this.lowest) this.lowest = kept;
    this.fit();
    this.counts[kept - this.base]!++;
    this.total++;
  }

  valueAtFromBottom(r: number): number {
    let seen = 0;
    for (let bin = this.lowest; bin <= this.highest; bin++) {
      seen += this.counts[bin - this.base]!;
      if (seen > r) return binValue(bin);
    }
    return binValue(this.highest);
  }

  valueAtFromTop(r: number): number {
    let seen = 0;
    for (let bin = this.highest; bin >= this.lowest; bin--) {
      seen += this.counts[bin - this.base]!;
      if (seen > r) return binValue(bin);
    }
    return binValue(this.lowest);
  }

  private collapseBelow(floor: number): void {
    let moved = 0;
    // The new highest bin is not in the array yet; the bins to merge all are.
    const end = Math.min(floor, this.base + this.counts.length);
    for (let bin = this.lowest; bin < end; bin++) {
      moved += this.counts[bin - this.base]!;
      this.counts[bin - this.base] = 0;
    }
    this.lowest = floor;
    this.fit();
    this.counts[floor - this.base]! += moved;
  }

  /** Makes the array cover [lowest, highest]. */
  private fit(): void {
    const length = this.counts.length;
    if (length > 0 && this.lowest >= this.base && this.highest < this.base + length) return;
    const span = this.highest - this.lowest + 1;
    const size = Math.min(Math.max(length * 2, span + 64), MAX_BINS + 64);
    const counts = new Float64Array(size);
    const base = this.lowest - Math.floor((size - span) / 2);
    for (let bin = Math.max(this.lowest, this.base); bin < Math.min(this.base + length, this.highest + 1); bin++) {
      counts[bin - base] = this.counts[bin - this.base]!;
    }
    this.counts = counts;
    this.base = base;
  }
}
