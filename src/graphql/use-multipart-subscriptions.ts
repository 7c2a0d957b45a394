/**
 * Subscriptions over HTTP multipart, as Apollo Client's HttpLink asks for them
 * (`Accept: multipart/mixed;boundary=graphql;subscriptionSpec=1.0`, Apollo's "multipart HTTP subscriptions" protocol):
 * each event is a part `{"payload": <result>}`, an empty part `{}` keeps the connection alive while nothing happens,
 * and a failure of the stream itself is a last part `{"payload": null, "errors": [...]}`. Yoga serves subscriptions
 * over SSE only (its own multipart is incremental delivery, another shape), so without this such a request gets 406.
 * The stream is pulled: an event is read from the live query only when the client has taken the last, so a slow
 * reader holds one event, never a queue.
 */
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import { withoutHttpExtension } from './mask-error.js';

/** How often an idle stream sends `{}`, well under proxies' idle timeouts (Apollo's router sends one every 5 s). */
const HEARTBEAT_MS = 5_000;
/**
 * Each part is followed at once by the delimiter: a client knows a part has ended only when it sees the next
 * delimiter, so a part sent without it would wait for the next event.
 */
const DELIMITER = '\r\n--graphql';
const part = (json: string) => `\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${json}${DELIMITER}`;
const END = '--\r\n';

export function useMultipartSubscriptions(): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      if (!isAsyncIterable(result) || !asksMultipartSubscription(request.headers.get('accept'))) return;
      setResultProcessor(
        (events, fetchAPI) => multipartResponse(events as AsyncIterable<ExecutionResult>, fetchAPI),
        'multipart/mixed',
      );
    },
  };
}

function asksMultipartSubscription(accept: string | null): boolean {
  return (accept ?? '')
    .split(',')
    .some((type) => /^\s*multipart\/mixed\s*;.*subscriptionspec\s*=\s*"?1\.0"?/i.test(type));
}

function multipartResponse(
  events: AsyncIterable<ExecutionResult>,
  fetchAPI: { Response: typeof Response; ReadableStream: typeof ReadableStream; TextEncoder: typeof TextEncoder },
): Response {
  const encoder = new fetchAPI.TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  let heartbeat: NodeJS.Timeout | undefined;
  let ended = false;
  const stop = () => {
    ended = true;
    clearInterval(heartbeat);
  };
  const body = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(DELIMITER));
      heartbeat = setInterval(() => {
        // Only into an empty queue: a client that does not read gets no pile of heartbeats.
        if (!ended && (controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(part('{}')));
      }, HEARTBEAT_MS);
      heartbeat.unref();
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (ended) return;
        if (next.done) {
          stop();
          controller.enqueue(encoder.encode(END));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(part(JSON.stringify({ payload: clean(next.value) }))));
      } catch (error) {
        if (ended) return;
        stop();
        const message = error instanceof Error ? error.message : String(error);
        controller.enqueue(encoder.encode(`${part(JSON.stringify({ payload: null, errors: [{ message }] }))}${END}`));
        controller.close();
      }
    },
    async cancel() {
      stop();
      await iterator.return?.();
    },
  });
  return new fetchAPI.Response(body, {
    status: 200,
    headers: {
      'content-type': 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0"',
      'cache-control': 'no-cache',
    },
  });
}

/** A result as a client reads it: errors as JSON without their HTTP extension, which a part has no use for. */
function clean(result: ExecutionResult): unknown {
  return result.errors === undefined ? result : { ...result, errors: result.errors.map(withoutHttpExtension) };
}
