/**
 * Compression for yoga's responses that are not GraphQL answers with data: GraphiQL's page and scripts, /metrics, and
 * answers without data. Answers with data are compressed as they are written (use-bounded-answers.ts).
 */
import { Readable } from 'node:stream';
import type { Plugin } from 'graphql-yoga';
import { textAnswer, type Answer } from '../http/answer-writer.js';
import { acceptedCoding, varies, type CompressionOptions } from '../http/compression.js';
import { answerHeaders } from '../http/send-answer.js';

/** Media types worth compressing: JSON answers, GraphiQL's page and scripts, Prometheus' text. */
const COMPRESSIBLE = /^(?:application\/(?:json|graphql-response\+json|javascript)|text\/)/i;

/**
 * Yoga's responses compressed when the client accepts it and they are large enough. The text is compressed in
 * 64 KiB pieces on zlib's threads, then sent with its length. Must come last in the plugin list: the compressed
 * response is a new one, and headers set on the old one after it are lost.
 */
export function useCompression(options: CompressionOptions): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const length = response.headers.get('content-length');
      const bytes = length === null ? Number.NaN : Number(length);
      // Without a length the body is a stream (yoga's event streams): those must reach the client as they come.
      if (!(bytes >= 0) || request.method === 'HEAD' || response.status === 204 || response.status === 304) return;
      // (Not `response.body`: for a string body whatwg-node would encode the whole answer at once to make that stream.)
      if (response.headers.has('content-encoding') || !COMPRESSIBLE.test(response.headers.get('content-type') ?? ''))
        return;
      // An answer that says it varies with Accept-Encoding was negotiated already.
      if (/accept-encoding/i.test(response.headers.get('vary') ?? '') || !varies(bytes, options)) return;
      const coding = acceptedCoding(request.headers.get('accept-encoding'));
      if (coding === undefined) {
        response.headers.append('vary', 'Accept-Encoding');
        return;
      }
      const answer = await textAnswer(await response.text(), { coding, minBytes: options.minBytes });
      setResponse(answerResponse(answer, response, fetchAPI));
    },
  };
}

/** `response` with `answer` as its body: its length, its coding and whether it varies with Accept-Encoding. */
export function answerResponse(
  answer: Answer,
  response: Response,
  fetchAPI: { Headers: typeof Headers; Response: typeof Response },
): Response {
  const headers = new fetchAPI.Headers(response.headers);
  // Vary adds to what the response varies with already; the others are the answer's own.
  for (const [name, value] of Object.entries(answerHeaders(answer)))
    if (name === 'vary') headers.append(name, value);
    else headers.set(name, value);
  // whatwg-node's Response takes a Node Readable and pipes it to the socket with back-pressure (its server adapter).
  const body = Readable.from(answer.body) as unknown as BodyInit;
  return new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers });
}
