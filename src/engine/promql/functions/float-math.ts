/**
 * Numeric helpers several tables share: Neumaier-compensated summation (Prometheus's kahansum.Inc) and the
 * interpolating quantile of a sample list, NaNs sorting first as in Prometheus.
 */

/** One step of compensated summation: returns [sum, compensation]; an infinite sum resets the compensation. */
export function kahanInc(inc: number, sum: number, c: number): [number, number] {
  const t = sum + inc;
  if (!Number.isFinite(t) && !Number.isNaN(t)) return [t, 0];
  if (Math.abs(sum) >= Math.abs(inc)) return [t, c + (sum - t + inc)];
  return [t, c + (inc - t + sum)];
}

/** Sorts in place with NaN first, as Prometheus's value heap orders; then interpolates between neighbours. */
export function quantile(q: number, values: number[]): number {
  if (values.length === 0 || Number.isNaN(q)) return Number.NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  values.sort((a, b) => (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : a - b));
  const n = values.length;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  // On a sample exactly, that sample: weighting its neighbour by 0 would turn an infinite neighbour into NaN (∞ × 0).
  if (weight === 0) return values[lower]!;
  return values[lower]! * (1 - weight) + values[upper]! * weight;
}

/** Slope and intercept (at `interceptMs`) of the least-squares line through the window's points, x in seconds. */
export function linearRegression(
  ts: Float64Array,
  vs: Float64Array,
  from: number,
  to: number,
  interceptMs: number,
): [number, number] {
  let n = 0;
  let sumX = 0;
  let cX = 0;
  let sumY = 0;
  let cY = 0;
  let sumXY = 0;
  let cXY = 0;
  let sumX2 = 0;
  let cX2 = 0;
  const initY = vs[from]!;
  let constY = true;
  for (let i = from; i < to; i++) {
    const y = vs[i]!;
    if (constY && i > from && y !== initY) constY = false;
    n++;
    const x = (ts[i]! - interceptMs) / 1000;
    [sumX, cX] = kahanInc(x, sumX, cX);
    [sumY, cY] = kahanInc(y, sumY, cY);
    [sumXY, cXY] = kahanInc(x * y, sumXY, cXY);
    [sumX2, cX2] = kahanInc(x * x, sumX2, cX2);
  }
  if (constY) return Number.isFinite(initY) || Number.isNaN(initY) ? [0, initY] : [Number.NaN, Number.NaN];
  sumX += cX;
  sumY += cY;
  sumXY += cXY;
  sumX2 += cX2;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  return [slope, sumY / n - (slope * sumX) / n];
}
