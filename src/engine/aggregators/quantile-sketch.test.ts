// The percentile sketch: every rank's value within 0.5%, the same answer in any order, bounded size.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuantileSketch, RELATIVE_ACCURACY } from './quantile-sketch.js';

describe('QuantileSketch', () => {
  // Magnitudes within 18 decades of each other, the span the bins cover before the smallest merge.
  const magnitude = fc.oneof(
    fc.constant(0),
    fc.double({ min: 1e-6, max: 1e9, noNaN: true }),
    fc.double({ min: -1e9, max: -1e-6, noNaN: true }),
  );

  it('returns each rank within the relative accuracy, and the extremes exactly', () => {
    fc.assert(
      fc.property(fc.array(magnitude, { minLength: 1, maxLength: 2000 }), (values) => {
        const sketch = new QuantileSketch();
        for (const v of values) sketch.add(v);
        const sorted = [...values].sort((a, b) => a - b);
        expect(sketch.valueAt(0)).toBe(sorted[0]);
        expect(sketch.valueAt(sorted.length - 1)).toBe(sorted[sorted.length - 1]);
        for (let r = 0; r < sorted.length; r += Math.ceil(sorted.length / 50)) {
          expect(Math.abs(sketch.valueAt(r) - sorted[r]!)).toBeLessThanOrEqual(
            RELATIVE_ACCURACY * Math.abs(sorted[r]!),
          );
        }
      }),
    );
  });

  it('gives the same answers whatever the order the values came in', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 2, maxLength: 500 })
          .chain((values) => fc.tuple(fc.constant(values), fc.shuffledSubarray(values, { minLength: values.length }))),
        ([values, shuffled]) => {
          const a = new QuantileSketch();
          const b = new QuantileSketch();
          for (const v of values) a.add(v);
          for (const v of shuffled) b.add(v);
          for (let r = 0; r < values.length; r++) expect(b.valueAt(r)).toBe(a.valueAt(r));
        },
      ),
    );
  });

  it('keeps values spanning hundreds of decades in bounded bins, exact at the top', () => {
    const sketch = new QuantileSketch();
    const values: number[] = [];
    for (let e = -300; e <= 300; e++) values.push(10 ** e);
    for (const v of values) sketch.add(v);
    expect(sketch.count).toBe(601);
    expect(sketch.valueAt(600)).toBe(1e300);
    const top = sketch.valueAt(590);
    expect(Math.abs(top - 1e290) / 1e290).toBeLessThanOrEqual(RELATIVE_ACCURACY);
  });
});
