/**
 * Printing reads back to the same tree (compared as printed text, which spells every detail), and the form it
 * prints in.
 */
import { describe, expect, it } from 'vitest';
import { parseExpr } from './parser.js';
import { printExpr } from './print-expr.js';

const QUERIES = [
  '-1^2',
  'sum by (job) (rate({"system.cpu.usage", host=~"a.*"}[5m] offset -1m @ 100))',
  'topk(3, foo) / ignoring(a) group_left(b) bar > bool 2',
  'a and on(x) b or c unless d',
  'max_over_time((foo + 1)[30m:1m] @ end() offset 5m)',
  'count_values without () ("v", foo)',
  'label_replace(foo, "dst", "$1", "src", "(.*)")',
  'NaN + -Inf * 1e300 - 0x10',
  'histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))',
];

describe('printExpr', () => {
  it.each(QUERIES)('prints %s so that it reads back to the same tree', (query) => {
    const printed = printExpr(parseExpr(query));
    expect(printExpr(parseExpr(printed))).toBe(printed);
  });

  it('prints selectors quoted and durations in milliseconds', () => {
    expect(printExpr(parseExpr('rate(foo{a="b"}[5m] offset 1m @ 1.5)'))).toBe(
      'rate({"__name__"="foo", "a"="b"}[300000ms] offset 60000ms @ 1.5)',
    );
    expect(printExpr(parseExpr('-1^2'))).toBe('-((1) ^ (2))');
  });
});
