/**
 * The deadline for receiving a request, on every route: headers and body must have arrived QUERY_TIMEOUT_MS after
 * the request began, or the client gets a 408 in its route's error format and the socket is released.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { RequestTimeoutError } from '../model/errors.js';
import type { ErrorFormat } from './edge.js';

/** How long a timed-out client may take to read its 408 before the socket is destroyed under it. */
const LINGER_MS = 2000;

/** createServer options that make Node enforce the deadline (its default would be 300 s for the body). */
export function requestDeadlineOptions(timeoutMs: number): ServerOptions {
  return {
    requestTimeout: timeoutMs,
    // Headers are part of the request: no separate, longer allowance for them.
    headersTimeout: timeoutMs,
    // Node looks for late requests every 30 s by default, so one could overstay by 30 s; a tenth of the deadline
    // (at most a second) keeps the overstay small at the cost of a walk over the open requests.
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeoutMs / 10))),
  };
}

/**
 * Answers requests Node found late with a 408 their front end's clients can read, in the error format `formatOf` gives
 * for the request's path (undefined: the headers never ended), and replaces Node's own answers to the other client
 * errors (which stop once a server listens for them) with the same ones.
 */
export function answerLateRequests(
  server: Server,
  timeoutMs: number,
  formatOf: (url: string | undefined) => ErrorFormat,
): void {
  // The response under way on each socket: whether it has begun, and which route's format a 408 takes.
  const inFlight = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    inFlight.set(req.socket, res);
    res.once('close', () => {
      if (inFlight.get(req.socket) === res) inFlight.delete(req.socket);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const res = inFlight.get(socket);
    if (!socket.writable || res?.headersSent) {
      socket.destroy();
      return;
    }
    if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
      // What Node sends when nobody listens (lib/_http_server.js, socketOnError).
      socket.end(`HTTP/1.1 ${NODE_REFUSALS[error.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
      socket.destroy();
      return;
    }
    const format = formatOf(res?.req.url);
    const body = format.body(new RequestTimeoutError(timeoutMs));
    const headers = Object.entries(format.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const head = `HTTP/1.1 408 Request Timeout\r\n${headers}Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    socket.end(head + body);
    // Closing at once could reset the connection while the client is still sending, and a reset can discard the
    // 408 before the client reads it: give it a moment to read and close, then release the socket regardless.
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  });
}

const NODE_REFUSALS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
};
