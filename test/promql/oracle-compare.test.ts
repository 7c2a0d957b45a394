/**
 * The comparison the Prometheus oracle judges by (test/prometheus/oracle-compare.ts), on answers made by hand: it must
 * tell a difference the compliance tester tells and let pass what the tester lets pass.
 */
import { describe, expect, it } from 'vitest';
import { type Answer, compareAnnotations, compareAnswers, RELATIVE_TOLERANCE } from '../prometheus/oracle-compare.js';

const matrix = (...series: [string, [number, number][]][]): Answer => ({
  ok: true,
  type: 'matrix',
  series: series.map(([metric, points]) => ({ metric, points })),
  annotations: [],
});

describe('compareAnswers', () => {
  it('lets values within 1e-5 relative pass, NaN equal NaN, and infinities only themselves', () => {
    const ref = matrix([
      '{a="1"}',
      [
        [0, 100],
        [10, Number.NaN],
        [20, Number.POSITIVE_INFINITY],
      ],
    ]);
    expect(
      compareAnswers(
        ref,
        matrix([
          '{a="1"}',
          [
            [0, 100 * (1 + 0.9 * RELATIVE_TOLERANCE)],
            [10, Number.NaN],
            [20, Number.POSITIVE_INFINITY],
          ],
        ]),
        false,
      ),
    ).toBeUndefined();
    expect(
      compareAnswers(
        ref,
        matrix([
          '{a="1"}',
          [
            [0, 100 * (1 + 2 * RELATIVE_TOLERANCE)],
            [10, Number.NaN],
            [20, Number.POSITIVE_INFINITY],
          ],
        ]),
        false,
      ),
    ).toMatch(/at 0/);
    expect(
      compareAnswers(
        ref,
        matrix([
          '{a="1"}',
          [
            [0, 100],
            [10, 0],
            [20, Number.POSITIVE_INFINITY],
          ],
        ]),
        false,
      ),
    ).toMatch(/at 10/);
    expect(
      compareAnswers(
        ref,
        matrix([
          '{a="1"}',
          [
            [0, 100],
            [10, Number.NaN],
            [20, Number.NEGATIVE_INFINITY],
          ],
        ]),
        false,
      ),
    ).toMatch(/at 20/);
  });

  it('tells missing, extra and moved points and series apart', () => {
    const ref = matrix([
      '{a="1"}',
      [
        [0, 1],
        [10, 2],
      ],
    ]);
    expect(compareAnswers(ref, matrix(['{a="1"}', [[0, 1]]]), false)).toMatch(/point 1/);
    expect(
      compareAnswers(
        ref,
        matrix([
          '{a="1"}',
          [
            [0, 1],
            [11, 2],
          ],
        ]),
        false,
      ),
    ).toMatch(/point 1 at 11/);
    expect(
      compareAnswers(
        ref,
        matrix([
          '{a="2"}',
          [
            [0, 1],
            [10, 2],
          ],
        ]),
        false,
      ),
    ).toMatch(/1 missing .*1 extra/);
    expect(compareAnswers(ref, { ...ref, type: 'vector' } as Answer, false)).toMatch(/result type/);
  });

  it('compares warnings and infos as text, whatever their order', () => {
    const ref = { ...matrix(), annotations: ['PromQL warning: a (1:1)', 'PromQL info: b (1:1)'] } as Answer;
    expect(compareAnnotations(ref, { ...ref })).toBeUndefined();
    expect(compareAnnotations(ref, { ...matrix(), annotations: ['PromQL warning: a (1:1)'] } as Answer)).toMatch(
      /info: b/,
    );
    expect(compareAnnotations(ref, { ok: false, error: 'x' })).toBeUndefined();
  });

  it('wants both to fail when the query must fail, and holds a failure on one side only against it', () => {
    const failed: Answer = { ok: false, error: '400 bad_data: parse error' };
    const ok = matrix();
    expect(compareAnswers(failed, failed, true)).toBeUndefined();
    expect(compareAnswers(failed, failed, false)).toMatch(/both failed/);
    expect(compareAnswers(failed, ok, true)).toMatch(/the engine answered/);
    expect(compareAnswers(ok, failed, false)).toMatch(/the engine failed/);
    expect(compareAnswers(ok, ok, true)).toMatch(/must fail/);
  });
});
