import fc from 'fast-check';
import { brotliDecompressSync, crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../engine/budget.js';
import { BudgetExceededError } from '../model/errors.js';
import { AnswerWriter, compressorPieces, textAnswer, writeJson, type Answer } from './answer-writer.js';
import { textChunks, type AnswerEncoding } from './compression.js';

const unlimited = () =>
  new RequestBudget({ maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: Infinity });

async function written(value: unknown, budget = unlimited()): Promise<string> {
  const out = new AnswerWriter(budget);
  await writeJson(value, out);
  const answer = await out.finish();
  expect(answer.coding).toBeUndefined();
  const text = answer.body.join('');
  expect([answer.bytes, answer.bodyBytes]).toEqual([Buffer.byteLength(text), Buffer.byteLength(text)]);
  return text;
}

/**
 * A gzip body that is exactly one member (RFC 1952): its header, one deflate stream that ends where the trailer
 * begins, and the trailer's CRC-32 and length of what it inflates to. A decoder that stops after the first member
 * reads all of it.
 */
function oneGzipMember(body: Buffer): Buffer {
  expect([...body.subarray(0, 4)]).toEqual([0x1f, 0x8b, 0x08, 0x00]);
  const deflated = body.subarray(10, body.length - 8);
  const { buffer, engine } = inflateRawSync(deflated, { info: true }) as unknown as {
    buffer: Buffer;
    engine: { bytesWritten: number };
  };
  expect(engine.bytesWritten).toBe(deflated.length);
  expect([body.readUInt32LE(body.length - 8), body.readUInt32LE(body.length - 4)]).toEqual([
    crc32(buffer),
    buffer.length % 2 ** 32,
  ]);
  expect(gunzipSync(body).equals(buffer)).toBe(true);
  return buffer;
}

/** The answer's body as the client reads it: decompressed, as UTF-8 text. */
function decoded(answer: Answer): string {
  const body = Buffer.concat(
    answer.body.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)),
  );
  expect(body.length).toBe(answer.bodyBytes);
  if (answer.coding === 'gzip') return oneGzipMember(body).toString('utf8');
  if (answer.coding === 'br') return brotliDecompressSync(body).toString('utf8');
  return body.toString('utf8');
}

describe('writeJson', () => {
  it('writes what JSON.stringify writes, for any JSON value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await written(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it("writes long arrays of points, of rows with their series' tags and of nested series in runs, unchanged", async () => {
    const points = Array.from({ length: 10_000 }, (_, i) => ({ epochMs: 1e12 + i, value: i % 7 === 0 ? null : i / 3 }));
    const tags = [{ name: 'h', value: 'é"\u2028' }];
    // Rows hold a few values each and go in runs; an item of 33 values or more goes on its own.
    const rows = points.map((p, i) => ({
      ...p,
      tags,
      group: i % 2 === 0 ? [] : [{ kind: 'TAG', tags }],
      wide: i % 1000 === 0 ? Array.from({ length: 33 }, (_, k) => k) : null,
    }));
    const data = { a: [{ name: 'x', tags, points }], b: points.slice(0, 5000).map((p) => [p.epochMs, p.value]), rows };
    expect(await written(data)).toBe(JSON.stringify(data));
  });

  it('leaves out what JSON.stringify leaves out', async () => {
    expect(await written({ a: undefined, b: () => 1, c: [undefined, 1] })).toBe('{"c":[null,1]}');
  });

  it('counts UTF-8 bytes against the answer budget and fails the request past it', async () => {
    const aborted: BudgetExceededError[] = [];
    const budget = new RequestBudget(
      { maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: 100_000 },
      (e) => aborted.push(e),
    );
    expect((await written('é'.repeat(40_000), budget)).length).toBe(40_002);
    expect(budget.answerBytes).toBe(80_002);
    await expect(written('x'.repeat(100_000), budget)).rejects.toThrow(
      'request exceeded its answer bytes budget of 100000 (MAX_RESPONSE_BYTES)',
    );
    expect(aborted).toHaveLength(1);
  });
});

describe('AnswerWriter, compressing as it writes', () => {
  const points = Array.from({ length: 20_000 }, (_, i) => ({
    epochMs: 1_700_000_000_000 + i * 10_000,
    value: Math.sin(i) * 100,
    tag: `héllo-${i % 7}-😀`,
  }));
  const text = JSON.stringify(points);

  async function answerOf(
    value: unknown,
    encoding: AnswerEncoding | undefined,
    closing = '',
    budget = unlimited(),
  ): Promise<Answer> {
    const out = new AnswerWriter(budget, undefined, encoding);
    await writeJson(value, out);
    return out.finish(closing);
  }

  it.each(['gzip', 'br'] as const)(
    '%s: the body decompresses to exactly the answer, and is its length',
    async (coding) => {
      const answer = await answerOf(points, { coding, minBytes: 1000 }, ',"closing":"é"}');
      expect([answer.coding, answer.varies, answer.bytes]).toEqual([
        coding,
        true,
        Buffer.byteLength(`${text},"closing":"é"}`),
      ]);
      expect(answer.bodyBytes).toBeLessThan(answer.bytes / 3);
      expect(decoded(answer)).toBe(`${text},"closing":"é"}`);
    },
  );

  it.each(['gzip', 'br', undefined] as const)(
    '%s: takes text and bytes in any mix, next to each other in one buffer or not',
    async (coding) => {
      // Pieces of text, views of one buffer laid end to end (as JsonBytes hands them out) or not, and buffers of their own
      // (ASCII: JsonBytes never cuts a character).
      const piece = fc.oneof(
        fc.record({ text: fc.string({ unit: 'grapheme', maxLength: 40 }) }),
        fc.record({ adjacent: fc.integer({ min: 1, max: 300_000 }), gap: fc.boolean() }),
        fc.record({ own: fc.integer({ min: 0, max: 300_000 }) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(piece, { maxLength: 40 }), async (pieces) => {
          const shared = Buffer.alloc(
            pieces.reduce((n, p) => n + ('adjacent' in p ? p.adjacent + 7 : 0), 0),
            '[-1.5,"x"]',
          );
          let offset = 0;
          const out = new AnswerWriter(unlimited(), undefined, { coding, minBytes: 0 });
          const expected: Buffer[] = [];
          for (const p of pieces) {
            let bytes: Buffer;
            if ('text' in p) {
              out.write(p.text);
              bytes = Buffer.from(p.text, 'utf8');
            } else {
              // A gap: the view is not next to the one before it in the buffer.
              if ('adjacent' in p && p.gap) offset += 7;
              bytes =
                'adjacent' in p ? shared.subarray(offset, (offset += p.adjacent)) : Buffer.alloc(p.own, `${p.own}`);
              out.writeBytes(bytes);
            }
            expected.push(bytes);
          }
          const answer = await out.finish('"end"');
          expected.push(Buffer.from('"end"'));
          const all = Buffer.concat(expected);
          expect(answer.bytes).toBe(all.length);
          expect(Buffer.from(decoded(answer), 'utf8').equals(all)).toBe(true);
        }),
        { numRuns: 25 },
      );
    },
  );

  it('hands the compressor adjacent views of one buffer as one view of it, copies only what is small, and keeps the order', () => {
    const KiB = 1024;
    const big = Buffer.alloc(1024 * KiB, 'a');
    const other = Buffer.alloc(600 * KiB, 'b');
    const chunks = [
      '{"data":',
      big.subarray(0, 300 * KiB),
      big.subarray(300 * KiB, 700 * KiB),
      other.subarray(0, 10 * KiB),
      Buffer.from('x'),
      big.subarray(700 * KiB),
      other.subarray(10 * KiB),
    ];
    const pieces = compressorPieces(chunks);
    expect(
      Buffer.concat(pieces).equals(Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)))),
    ).toBe(true);
    // The two views of `big` side by side become one view of it; the text before them goes alone (a large piece is
    // never copied to join a small one); the small ones after are copied together; the last two are views of their own.
    expect(
      pieces.map((piece) => [
        piece.length / KiB,
        piece.buffer === big.buffer ? 'big' : piece.buffer === other.buffer ? 'other' : 'copy',
      ]),
    ).toEqual([
      [8 / KiB, 'copy'],
      [700, 'big'],
      [(10 * KiB + 1) / KiB, 'copy'],
      [324, 'big'],
      [590, 'other'],
    ]);
  });

  it('compresses only from minBytes up, and says so in `varies` only when compression is on', async () => {
    const small = JSON.stringify(points.slice(0, 10));
    const bytes = Buffer.byteLength(small);
    const cases = [
      [{ coding: 'gzip', minBytes: bytes + 1 }, undefined, false],
      [{ coding: 'gzip', minBytes: bytes }, 'gzip', true],
      [{ coding: undefined, minBytes: bytes }, undefined, true],
      [undefined, undefined, false],
    ] as const;
    for (const [encoding, coding, varies] of cases) {
      const answer = await answerOf(points.slice(0, 10), encoding);
      expect([answer.coding, answer.varies, answer.bytes, decoded(answer)]).toEqual([coding, varies, bytes, small]);
    }
  });

  it('counts the closing text in the length but not against the budget', async () => {
    const budget = new RequestBudget({ maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: 10 });
    const answer = await answerOf('12345678', { coding: 'gzip', minBytes: 0 }, 'x'.repeat(100), budget);
    expect([budget.answerBytes, answer.bytes, decoded(answer)]).toEqual([10, 110, `"12345678"${'x'.repeat(100)}`]);
  });

  it.each(['gzip', 'br'] as const)(
    'stops compressing an answer that goes over its budget, and frees the compressor (%s)',
    async (coding) => {
      const budget = new RequestBudget(
        { maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: 200_000 },
        () => undefined,
      );
      const out = new AnswerWriter(budget, undefined, { coding, minBytes: 0 });
      const compressor = () => (out as unknown as { compressor?: { destroyed: boolean } }).compressor;
      out.write('x'.repeat(100_000));
      const started = compressor();
      expect(started?.destroyed).toBe(false);
      expect(() => out.write('y'.repeat(150_000))).toThrow(BudgetExceededError);
      expect([started?.destroyed, compressor()]).toEqual([true, undefined]);
    },
  );

  it('writes a text made elsewhere in pieces, compressed when it is large enough, without counting it', async () => {
    const answer = await textAnswer(text, { coding: 'gzip', minBytes: 1000 });
    expect([answer.coding, decoded(answer)]).toEqual(['gzip', text]);
    const plain = await textAnswer('{"a":1}', { coding: 'gzip', minBytes: 1000 });
    expect([plain.coding, plain.varies, plain.body]).toEqual([undefined, false, ['{"a":1}']]);
  });

  it.each(['gzip', 'br'] as const)('keeps the event loop turning while it compresses 60 MB (%s)', async (coding) => {
    const big = text.repeat(Math.ceil(60e6 / text.length)).slice(0, 60e6);
    const gaps: number[] = [];
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }, 1);
    const started = performance.now();
    // Written as the answers' writers write, yielding the thread between chunks.
    const out = new AnswerWriter(undefined, undefined, { coding, minBytes: 0 });
    for (const chunk of textChunks(big)) {
      out.write(chunk);
      await new Promise(setImmediate);
    }
    const answer = await out.finish();
    const wallMs = performance.now() - started;
    clearInterval(ticker);
    expect(decoded(answer) === big).toBe(true);
    // zlib works on its own threads: timers fire all along, where a compression on this thread would let none fire
    // for the whole time. Both bounds are relative to the wall time, so a machine busy with other work, which slows
    // the whole run (and may stall the thread once or twice), does not fail them; a compression that held it would.
    gaps.sort((a, b) => a - b);
    expect(gaps.length).toBeGreaterThan(wallMs / 20);
    expect(gaps[Math.floor(gaps.length * 0.9)]).toBeLessThan(Math.max(16, wallMs / 20));
  });
});
