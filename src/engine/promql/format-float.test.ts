/**
 * Numbers printed as Go prints them, digit for digit: count_values's label values and the %g of messages.
 */
import { describe, expect, it } from 'vitest';
import { formatFloat, formatG } from './format-float.js';

describe('formatFloat', () => {
  it("prints as strconv.FormatFloat(v, 'f', -1, 64)", () => {
    expect([1, 0.1, -2.5, 1e21, 1.5e-7, 123456789012, Infinity, -Infinity, Number.NaN].map(formatFloat)).toEqual([
      '1',
      '0.1',
      '-2.5',
      '1000000000000000000000',
      '0.00000015',
      '123456789012',
      '+Inf',
      '-Inf',
      'NaN',
    ]);
  });
});

describe('formatG', () => {
  it('prints as %g: exponent form below 1e-4 and from 1e6', () => {
    expect([1.5, 100000, 1e6, 1234567, 0.0001, 0.00001, -0.5, 0].map(formatG)).toEqual([
      '1.5',
      '100000',
      '1e+06',
      '1.234567e+06',
      '0.0001',
      '1e-05',
      '-0.5',
      '0',
    ]);
  });
});
