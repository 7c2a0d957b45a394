/**
 * gRPC over Node's own HTTP/2: one session to the endpoint (plain text for the emulator, TLS with a bearer token for
 * Google's service), calls framed as gRPC frames them (a flag byte, a 4-byte length, the message), and the status from
 * the trailers (or from the headers of a trailers-only answer). What the Bigtable client needs and nothing more:
 * unary and server-streaming calls, deadlines, cancellation by AbortSignal.
 */
import http2 from 'node:http2';

export interface ChannelOptions {
  /** `host:port`. */
  readonly endpoint: string;
  /** TLS (Google's service) or plain text (the emulator). */
  readonly tls: boolean;
  /** The `authorization` header of each call (`Bearer ...`), when the endpoint asks for one. */
  readonly authorization?: () => Promise<string | undefined>;
  /** Headers every call carries (Google's routing header). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A call that ended with a gRPC status other than OK; `code` is gRPC's (14: UNAVAILABLE). */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
    readonly method: string,
  ) {
    super(`${method} failed with gRPC status ${code} (${STATUS_NAMES[code] ?? 'UNKNOWN'}): ${details}`);
  }
}

/** gRPC's status names, for messages. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  1: 'CANCELLED',
  2: 'UNKNOWN',
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  6: 'ALREADY_EXISTS',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  10: 'ABORTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  16: 'UNAUTHENTICATED',
};

export class GrpcChannel {
  private session: http2.ClientHttp2Session | undefined;

  constructor(private readonly options: ChannelOptions) {}

  /** One request, a stream of answers, as they come; throws a GrpcError for a status other than OK. */
  async *call(
    method: string,
    request: Buffer,
    deadlineMs: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Buffer> {
    signal?.throwIfAborted();
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${Math.max(1, Math.ceil(deadlineMs))}m`,
      ...this.options.headers,
    };
    const authorization = await this.options.authorization?.();
    if (authorization !== undefined) headers['authorization'] = authorization;
    // Aborted while the token was fetched: the listener below would never hear it, and the call would run to its deadline.
    signal?.throwIfAborted();
    const stream = this.connect().request(headers);
    // A listener of our own, removed when the call ends: a request's signal outlives many calls (a copy's, a query's).
    const cancel = (): void => void stream.close(http2.constants.NGHTTP2_CANCEL);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      yield* this.answers(stream, request, method, signal);
    } finally {
      signal?.removeEventListener('abort', cancel);
      // A caller that stopped early (a read's limit reached) leaves nothing streaming for it.
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    }
  }

  private async *answers(
    stream: http2.ClientHttp2Stream,
    request: Buffer,
    method: string,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Buffer> {
    let status: { code: number; details: string } | undefined;
    const takeStatus = (h: http2.IncomingHttpHeaders): void => {
      const code = h['grpc-status'];
      if (code !== undefined) status = { code: Number(code), details: decodeMessage(h['grpc-message']) };
    };
    stream.on('response', takeStatus);
    stream.on('trailers', takeStatus);
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(request.length, 1);
    stream.end(Buffer.concat([frame, request]));
    let pending: Buffer = Buffer.alloc(0);
    for await (const data of stream as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? data : (Buffer.concat([pending, data]) as Buffer);
      while (pending.length >= 5) {
        const length = pending.readUInt32BE(1);
        if (pending.length < 5 + length) break;
        if (pending[0] !== 0) throw new GrpcError(13, 'a compressed answer, which was not asked for', method);
        yield pending.subarray(5, 5 + length);
        pending = pending.subarray(5 + length);
      }
    }
    signal?.throwIfAborted();
    if (status === undefined) {
      const http = stream.sentHeaders === undefined ? '' : ` (HTTP/2 stream closed with code ${stream.rstCode})`;
      throw new GrpcError(14, `the answer ended without a gRPC status${http}`, method);
    }
    if (status.code !== 0) throw new GrpcError(status.code, status.details, method);
  }

  /** One request, one answer. */
  async unary(method: string, request: Buffer, deadlineMs: number, signal?: AbortSignal): Promise<Buffer> {
    let answer: Buffer | undefined;
    for await (const message of this.call(method, request, deadlineMs, signal)) answer = message;
    if (answer === undefined) throw new GrpcError(13, 'no answer message', method);
    return answer;
  }

  close(): void {
    this.session?.close();
    this.session = undefined;
  }

  private connect(): http2.ClientHttp2Session {
    const current = this.session;
    if (current !== undefined && !current.closed && !current.destroyed) return current;
    const scheme = this.options.tls ? 'https' : 'http';
    const session = http2.connect(`${scheme}://${this.options.endpoint}`);
    // A failed connection fails its streams; the next call connects again.
    session.on('error', () => {});
    session.on('close', () => {
      if (this.session === session) this.session = undefined;
    });
    this.session = session;
    return session;
  }
}

/** grpc-message is percent-encoded. */
function decodeMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
