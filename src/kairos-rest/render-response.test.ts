/**
 * KairosDB's query answer as render-response writes it: every kind of value, a kept slice of more doubles than one
 * formatted text holds, and non-finite doubles as null.
 */
import { describe, expect, it } from 'vitest';
import { PointList } from '../engine/point-list.js';
import { AnswerWriter } from '../http/answer-writer.js';
import { renderQueryResponse } from './render-response.js';

describe('renderQueryResponse', () => {
  it('writes every kind of value as KairosDB does, non-finite doubles as null', async () => {
    const points = new PointList();
    points.push(1, 'double', 1.5);
    points.push(2, 'double', Number.NaN);
    points.push(3, 'long', 2n ** 60n + 1n);
    points.push(4, 'string', 'a "b"');
    points.push(5, 'complex', { real: -0.25, imaginary: Number.POSITIVE_INFINITY });
    points.push(6, 'null', null);
    const key = { metric: 'm', rowTime: 0, dataType: 'kairos_double', tags: {} };
    const n = 5000;
    const timestamps = Float64Array.from({ length: n }, (_, i) => 1_767_225_600_000 + i);
    const values = Float64Array.from({ length: n }, (_, i) => (i === 4100 ? Number.NEGATIVE_INFINITY : i / 3));
    points.appendSlice({ key, kind: 'double', timestamps, values });
    const output = {
      metric: 'm',
      sampleSize: 5006,
      warnings: [],
      groups: [{ name: 'm', groupBy: [], tags: { h: ['a'] }, sampleSize: 5006, points }],
    };
    const answer = await renderQueryResponse([{ output, excludeTags: false }], new AnswerWriter(undefined));
    const pushed =
      '[1,1.5],[2,null],[3,1152921504606846977],[4,"a \\"b\\""],[5,{"real":-0.25,"imaginary":null}],[6,null]';
    const kept = Array.from(timestamps, (t, i) => `[${t},${i === 4100 ? 'null' : JSON.stringify(i / 3)}]`).join(',');
    expect(answer.body.join('')).toBe(
      `{"queries":[{"sample_size":5006,"results":[{"name":"m","tags":{"h":["a"]},"values":[${pushed},${kept}]}]}]}`,
    );
  });
});
