/**
 * Compression's parts on their own: Accept-Encoding negotiation, the cut of an answer into chunks that encode
 * exactly, and the compressed stream: exact bytes back, and an event loop that keeps turning while 60 MB compress.
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptedCoding, answerCoding, compressedStream, textChunks, varies } from './compression.js';

describe('acceptedCoding', () => {
  it.each([
    [null, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['br', 'br'],
    // Browsers, curl --compressed, undici: brotli on a tie.
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['*', 'br'],
    ['gzip;q=1.0, br;q=0.5', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['*;q=0', undefined],
    ['gzip ; q=0.8 , br ; q=0.9', 'br'],
    // A q-value that does not parse leaves its element out.
    ['br;q=2, gzip', 'gzip'],
    ['br;level=5, gzip;q=0.1', 'gzip'],
  ] as const)('%o → %o', (header, coding) => {
    expect(acceptedCoding(header)).toBe(coding);
  });

  it('compresses only answers from the threshold up, and only when on', () => {
    const on = { enabled: true, minBytes: 1000 };
    expect([answerCoding('gzip', 999, on), answerCoding('gzip', 1000, on), answerCoding('gzip', 1000, { ...on, enabled: false })]).toEqual([undefined, 'gzip', undefined]);
    expect([varies(999, on), varies(1000, on), varies(1000, { ...on, enabled: false })]).toEqual([false, true, false]);
  });
});

describe('textChunks', () => {
  it('cuts a text into pieces of 64 Ki characters that join back into it', () => {
    const text = 'x'.repeat(3 * 65_536 + 5);
    expect([...textChunks(text)].map((chunk) => chunk.length)).toEqual([65_536, 65_536, 65_536, 5]);
    expect([...textChunks('')]).toEqual([]);
  });

  it('never cuts a surrogate pair, so each piece encodes to the bytes of the whole', () => {
    // The emoji's high surrogate is the 65,536th character.
    const text = `${'a'.repeat(65_535)}😀${'b'.repeat(10)}`;
    const chunks = [...textChunks(text)];
    expect(chunks.map((chunk) => chunk.length)).toEqual([65_537, 10]);
    expect(Buffer.concat(chunks.map((chunk) => Buffer.from(chunk, 'utf8')))).toEqual(Buffer.from(text, 'utf8'));
  });
});

describe('compressedStream', () => {
  const answer = JSON.stringify({ data: Array.from({ length: 20_000 }, (_, i) => ({ epochMs: 1_700_000_000_000 + i * 10_000, value: Math.sin(i) * 100, tag: `héllo-${i % 7}-😀` })) });

  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
  ] as const)('%s decompresses to exactly the answer', async (coding, decompress) => {
    const compressed = await collect(compressedStream(textChunks(answer), coding, Buffer.byteLength(answer)));
    expect(compressed.length).toBeLessThan(Buffer.byteLength(answer) / 3);
    expect(decompress(compressed).toString('utf8')).toBe(answer);
  });

  it.each(['gzip', 'br'] as const)('keeps the event loop turning while it compresses 60 MB (%s)', async (coding) => {
    const text = answer.repeat(Math.ceil(60e6 / answer.length)).slice(0, 60e6);
    const gaps: number[] = [];
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }, 1);
    const started = performance.now();
    const compressed = await collect(compressedStream(textChunks(text), coding, text.length));
    const wallMs = performance.now() - started;
    clearInterval(ticker);
    expect(compressed.length).toBeGreaterThan(0);
    // zlib works on its own threads: timers fire all along, about once a millisecond, where a compression on this
    // thread would let none fire for the whole time (hundreds of milliseconds). A busy machine may still stall the
    // thread now and then, so the bound is on the typical gap, not the single longest.
    gaps.sort((a, b) => a - b);
    expect(gaps.length).toBeGreaterThan(wallMs / 20);
    expect(gaps[Math.floor(gaps.length * 0.95)]).toBeLessThan(16);
  });
});

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(
    stream,
    new Writable({
      write(chunk: Buffer, _, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(chunks);
}
