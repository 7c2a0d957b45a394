/**
 * Reads a request body (REST's JSON, Prometheus's forms) into memory within REST_MAX_BODY_BYTES, inflating gzip
 * (`Content-Encoding: gzip`, or KairosDB's deprecated `Content-Type: application/gzip`). The limit holds for the bytes received and for the
 * inflated bytes, so neither a long upload nor a gzip bomb can grow the heap; a refused body is drained, not read.
 * A body must be in before the request's time limit (QUERY_TIMEOUT_MS).
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from './http-errors.js';
import { KairographError, QueryTimeoutError, RequestTimeoutError } from '../model/errors.js';

/**
 * Resolves with the whole (inflated) body; rejects with a typed error (413, 415, a 408 when the request's time limit
 * passes before the body is in, a 400), or `signal`'s other reasons. `inflate` false reads the bytes as sent, for a
 * protocol that names its own compression in Content-Encoding (remote write's snappy) and undoes it itself.
 */
export function readBody(req: IncomingMessage, maxBytes: number, signal: AbortSignal, inflate = true): Promise<Buffer> {
  let inflater: Gunzip | Inflate | undefined;
  try {
    inflater = inflate ? inflaterFor(req) : undefined;
  } catch (error) {
    req.resume();
    return Promise.reject(error);
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge(maxBytes, 'request body'));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let kept = 0;
    let settled = false;
    const settle = (error: unknown, body?: Buffer) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) return resolve(body!);
      // The rest of the body is read and thrown away, so the response can still be sent on this connection.
      req.resume();
      inflater?.destroy();
      reject(error);
    };
    const keep = (chunk: Buffer) => {
      kept += chunk.length;
      if (kept > maxBytes) settle(tooLarge(maxBytes, 'inflated request body'));
      else chunks.push(chunk);
    };
    const onAbort = () => settle(bodyAbortReason(signal.reason));
    if (signal.aborted) return settle(bodyAbortReason(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received > maxBytes) settle(tooLarge(maxBytes, 'request body'));
      else if (inflater) inflater.write(chunk);
      else keep(chunk);
    });
    req.on('end', () => {
      if (inflater) inflater.end();
      else settle(undefined, Buffer.concat(chunks));
    });
    req.on('error', (error) => settle(error));
    if (inflater) {
      inflater.on('data', (chunk: Buffer) => {
        if (!settled) keep(chunk);
      });
      inflater.on('end', () => settle(undefined, Buffer.concat(chunks)));
      inflater.on('error', (error) =>
        settle(
          new KairographError(
            'BAD_USER_INPUT',
            `request body is not valid ${encodingName(req)} data: ${error.message}`,
          ),
        ),
      );
    }
  });
}

function inflaterFor(req: IncomingMessage): Gunzip | Inflate | undefined {
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip' || (encoding === '' && type === 'application/gzip'))
    return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === '' || encoding === 'identity') return undefined;
  throw new UnsupportedMediaTypeError(`Content-Encoding ${encoding} is not supported (gzip, deflate or identity)`);
}

function encodingName(req: IncomingMessage): string {
  return (req.headers['content-encoding'] ?? '').trim().toLowerCase() === 'deflate' ? 'deflate' : 'gzip';
}

/**
 * A body still arriving at the time limit is the client's delay, not the query's: 408 as the server answers any
 * late request (src/http/request-deadline.ts), with the same message whichever of the two notices first.
 */
function bodyAbortReason(reason: unknown): unknown {
  return reason instanceof QueryTimeoutError ? new RequestTimeoutError(reason.timeoutMs) : reason;
}

function tooLarge(maxBytes: number, what: string): PayloadTooLargeError {
  return new PayloadTooLargeError(`${what} exceeds ${maxBytes} bytes (REST_MAX_BODY_BYTES)`);
}
