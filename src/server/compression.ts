/**
 * Compressed answers for both front ends: which coding a client's Accept-Encoding allows (brotli, else gzip), the
 * levels, the size below which an answer goes as it is, and the stream that compresses an answer chunk by chunk on
 * zlib's threads, so no answer, however large, holds the event loop while it is compressed.
 */
import { Readable, pipeline } from 'node:stream';
import { constants, createBrotliCompress, createGzip, type Gzip, type BrotliCompress } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

export type ContentCoding = 'br' | 'gzip';

export interface CompressionOptions {
  /** COMPRESSION */
  readonly enabled: boolean;
  /** COMPRESSION_MIN_BYTES: smaller answers go as they are. */
  readonly minBytes: number;
}

/**
 * Cheap levels (bench/compression.ts, bench/RESULTS.md): on the demo's large answers each costs less CPU than the time
 * its saved bytes take on a 1 Gbit/s link, and a higher level's extra CPU is more than its extra saving. Brotli 1 costs
 * about what brotli 0 does and sends a quarter less of an aggregated (dashboard) answer.
 */
export const GZIP_LEVEL = 1;
export const BROTLI_QUALITY = 1;

/** Text handed to zlib at a time: the AnswerWriter's chunk size, so a chunk's UTF-8 encoding is a small, bounded step. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The coding to answer `bytes` of JSON or text in, or undefined for identity: none when compression is off, the
 * answer is small, or the client accepts neither coding.
 */
export function answerCoding(acceptEncoding: string | null | undefined, bytes: number, options: CompressionOptions): ContentCoding | undefined {
  return varies(bytes, options) ? acceptedCoding(acceptEncoding) : undefined;
}

/** True when an answer of `bytes` depends on Accept-Encoding, so it must say `Vary: Accept-Encoding` whatever it is sent in. */
export function varies(bytes: number, options: CompressionOptions): boolean {
  return options.enabled && bytes >= options.minBytes;
}

/**
 * RFC 9110 §12.5.3: the coding with the highest q-value that the gateway can produce, brotli on a tie (on the demo's
 * answers it is both smaller and cheaper than gzip at the levels above). A coding not listed is acceptable only
 * through `*`; q=0 refuses it. `x-gzip` is gzip. Elements that do not parse are ignored.
 */
export function acceptedCoding(acceptEncoding: string | null | undefined): ContentCoding | undefined {
  if (!acceptEncoding) return undefined;
  const q: Partial<Record<'br' | 'gzip' | '*', number>> = {};
  for (const element of acceptEncoding.split(',')) {
    const [name = '', ...params] = element.split(';').map((part) => part.trim());
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    if (coding !== 'br' && coding !== 'gzip' && coding !== '*') continue;
    let weight = 1;
    for (const param of params) {
      const match = /^q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i.exec(param);
      if (match === null) {
        weight = Number.NaN;
        break;
      }
      weight = Number(match[1]);
    }
    if (!Number.isNaN(weight)) q[coding] = Math.max(q[coding] ?? 0, weight);
  }
  const br = q.br ?? q['*'] ?? 0;
  const gzip = q.gzip ?? q['*'] ?? 0;
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/** A compressor for an answer of `bytes`; brotli is told the size, so a small answer gets a small window. */
export function createCompressor(coding: ContentCoding, bytes: number): Gzip | BrotliCompress {
  // zlib hands out its output in chunks of this size: the same as the input chunks, so a write is one socket write.
  const chunkSize = CHUNK_CHARS;
  if (coding === 'gzip') return createGzip({ level: GZIP_LEVEL, chunkSize });
  return createBrotliCompress({
    chunkSize,
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: Math.min(bytes, 0xffff_ffff),
    },
  });
}

/**
 * The text in pieces of about 64 KiB, each cut between two characters: a piece is encoded to UTF-8 on its own, and a
 * surrogate pair cut in two would become two U+FFFD.
 */
export function* textChunks(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    yield text.slice(start, end);
    start = end;
  }
}

/**
 * The compressed stream of `chunks`: each is read only when zlib wants more (zlib compresses on its thread pool, and
 * the stream's reader sets the pace), so neither the event loop nor memory holds a whole answer's compression.
 */
export function compressedStream(chunks: Iterable<string>, coding: ContentCoding, bytes: number): Readable {
  const compressor = createCompressor(coding, bytes);
  // The reader destroys the stream when its client leaves; that end is no error to report, and an 'error' event
  // without a listener would throw.
  pipeline(Readable.from(chunks), compressor, () => undefined);
  return compressor;
}

/** Media types worth compressing: JSON answers, GraphiQL's page and scripts, Prometheus' text. */
const COMPRESSIBLE = /^(?:application\/(?:json|graphql-response\+json|javascript)|text\/)/i;

/**
 * Yoga's responses (GraphQL answers, GraphiQL, /metrics) compressed when the client accepts it and they are large
 * enough. Yoga hands over the answer as one string; it is compressed in 64 KiB pieces as the socket drains. Must come
 * last in the plugin list: the compressed response is a new one, and headers set on the old one after it are lost.
 */
export function useCompression(options: CompressionOptions): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const length = response.headers.get('content-length');
      const bytes = length === null ? Number.NaN : Number(length);
      // Without a length the body is a stream (yoga's event streams): those must reach the client as they come.
      if (!(bytes >= 0) || request.method === 'HEAD' || response.status === 204 || response.status === 304) return;
      // (Not `response.body`: for a string body whatwg-node would encode the whole answer at once to make that stream.)
      if (response.headers.has('content-encoding') || !COMPRESSIBLE.test(response.headers.get('content-type') ?? '')) return;
      if (!varies(bytes, options)) return;
      const coding = acceptedCoding(request.headers.get('accept-encoding'));
      if (coding === undefined) {
        response.headers.append('vary', 'Accept-Encoding');
        return;
      }
      const text = await response.text();
      const headers = new fetchAPI.Headers(response.headers);
      headers.delete('content-length');
      headers.set('content-encoding', coding);
      headers.append('vary', 'Accept-Encoding');
      // whatwg-node's Response takes a Node Readable and pipes it to the socket with back-pressure (its server adapter).
      const body = compressedStream(textChunks(text), coding, bytes) as unknown as BodyInit;
      setResponse(new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers }));
    },
  };
}
