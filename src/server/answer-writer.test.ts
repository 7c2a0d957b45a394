import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../engine/budget.js';
import { BudgetExceededError } from '../errors.js';
import { AnswerWriter, writeJson } from './answer-writer.js';

const unlimited = () => new RequestBudget({ maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: Infinity });

async function written(value: unknown, budget = unlimited()): Promise<string> {
  const out = new AnswerWriter(budget);
  await writeJson(value, out);
  const answer = out.finish();
  expect(answer.bytes).toBe(Buffer.byteLength(answer.chunks.join('')));
  return answer.chunks.join('');
}

describe('writeJson', () => {
  it('writes what JSON.stringify writes, for any JSON value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await written(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('writes long arrays of points and of nested series in runs, unchanged', async () => {
    const points = Array.from({ length: 10_000 }, (_, i) => ({ epochMs: 1e12 + i, value: i % 7 === 0 ? null : i / 3 }));
    const data = { a: [{ name: 'x', tags: [{ name: 'h', value: 'é"\u2028' }], points }], b: points.slice(0, 5000).map((p) => [p.epochMs, p.value]) };
    expect(await written(data)).toBe(JSON.stringify(data));
  });

  it('leaves out what JSON.stringify leaves out', async () => {
    expect(await written({ a: undefined, b: () => 1, c: [undefined, 1] })).toBe('{"c":[null,1]}');
  });

  it('counts UTF-8 bytes against the answer budget and fails the request past it', async () => {
    const aborted: BudgetExceededError[] = [];
    const budget = new RequestBudget({ maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: 100_000 }, (e) => aborted.push(e));
    expect((await written('é'.repeat(40_000), budget)).length).toBe(40_002);
    expect(budget.answerBytes).toBe(80_002);
    await expect(written('x'.repeat(100_000), budget)).rejects.toThrow('request exceeded its answer bytes budget of 100000 (MAX_RESPONSE_BYTES)');
    expect(aborted).toHaveLength(1);
  });
});
