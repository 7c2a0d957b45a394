import { describe, expect, it } from 'vitest';
import { quantile } from './float-math.js';

describe('quantile', () => {
  it('answers the sample at an exact rank even beside an infinity, as Prometheus 3.16 does', () => {
    // Found by the Prometheus oracle (test/prometheus/): sorted [NaN, -0.5, +Inf], rank 1 is -0.5, not -0.5 + ∞ × 0.
    expect(quantile(0.5, [Number.POSITIVE_INFINITY, -0.5, Number.NaN])).toBe(-0.5);
    expect(quantile(0.5, [Number.NEGATIVE_INFINITY, 2, 7])).toBe(2);
    expect(quantile(0, [Number.NEGATIVE_INFINITY, 2])).toBe(Number.NEGATIVE_INFINITY);
  });

  it('interpolates between neighbours, infinities included, with NaN sorting first', () => {
    expect(quantile(0.25, [1, 3])).toBe(1.5);
    expect(quantile(0.5, [1, Number.POSITIVE_INFINITY])).toBe(Number.POSITIVE_INFINITY);
    expect(quantile(0.25, [Number.NaN, 4])).toBeNaN();
    expect(quantile(1, [Number.NaN, 4])).toBe(4);
  });

  it('answers -Inf below 0, +Inf above 1, NaN without values or for a NaN quantile', () => {
    expect(quantile(-0.1, [1])).toBe(Number.NEGATIVE_INFINITY);
    expect(quantile(1.1, [1])).toBe(Number.POSITIVE_INFINITY);
    expect(quantile(0.5, [])).toBeNaN();
    expect(quantile(Number.NaN, [1])).toBeNaN();
  });
});
