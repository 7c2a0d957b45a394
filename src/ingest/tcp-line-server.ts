/**
 * The TCP server both line protocols share (KairosDB's telnet, Graphite's plaintext): it cuts the stream into lines,
 * has the protocol read each, batches the points by count and time through the one write path, and bounds what a
 * sender can make the gateway hold: a socket is paused while its batch is written, a line has a length limit, an idle
 * connection is closed, connections are counted.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Logger } from '../lib/log.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { WriteBatch } from '../model/write-batch.js';
import { LineBatch, refusalOf, type LinePoint } from './tcp-line-batch.js';
import type { CloseReason, RejectReason, TcpIngestMetrics, TcpProtocol } from './tcp-metrics.js';

/** What a protocol makes of one line (without its newline); undefined for a line to pass over (an empty one). */
export type LineOutcome =
  | { readonly point: LinePoint }
  | { readonly reply: string }
  | { readonly reject: 'malformed' | 'unknown_command'; readonly message: string }
  | undefined;

export interface LineProtocol {
  readonly name: TcpProtocol;
  /** `nowMs`: the time of a point that has none (Graphite's `-1`). */
  parse(line: string, nowMs: number): LineOutcome;
}

export interface TcpLineSettings {
  readonly host: string;
  readonly port: number;
  /** Open connections at most; one more is closed as it arrives. */
  readonly maxConnections: number;
  /** A connection that sends nothing for this long is closed (its points written first). */
  readonly idleTimeoutMs: number;
  /** A line longer than this closes its connection: a sender of garbage without newlines cannot grow our memory. */
  readonly maxLineBytes: number;
  /** A connection's points are written once this many are held ... */
  readonly batchPoints: number;
  /** ... or this long after the first of them arrived. */
  readonly batchMs: number;
}

export interface TcpLineDeps {
  /** Writes a batch through the app's write path; resolves once it is durable. */
  readonly write: (batch: WriteBatch, client: string) => Promise<void>;
  /** The store's key limits, which every point is validated against. */
  readonly keys: KeyLimits;
  readonly metrics: TcpIngestMetrics;
  readonly log: Logger;
}

/** Replies a client has not read: past this it is not reading them, and is cut off. */
const MAX_REPLY_BACKLOG_BYTES = 64 * 1024;
/** After an idle close or a shutdown, how long a client has to take our FIN before its socket is destroyed. */
const CLOSE_GRACE_MS = 2_000;
/** The request line of HTTP/1.x: no line of either protocol looks like it. */
const HTTP_REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d/;
/** How long shutdown waits for the store to take what connections hold. */
const SHUTDOWN_WAIT_MS = 10_000;
/** At most one warning per period about refused lines, per listener; the rest are counted in it. */
const WARN_PERIOD_MS = 10_000;

interface Connection {
  readonly socket: Socket;
  readonly client: string;
  readonly batch: LineBatch;
  /** Bytes of a line whose newline has not come yet. */
  rest: Buffer | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The write under way; while it is, the socket is paused. */
  writing: Promise<void> | undefined;
  closing: boolean;
}

export class TcpLineServer {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  private readonly name: TcpProtocol;
  private warnedAtMs = Number.NEGATIVE_INFINITY;
  private suppressed = 0;

  constructor(
    private readonly protocol: LineProtocol,
    private readonly settings: TcpLineSettings,
    private readonly deps: TcpLineDeps,
  ) {
    this.name = protocol.name;
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Resolves once the port is bound, with its address (port 0 picks a free one). */
  async listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.settings.port, this.settings.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  /**
   * Stops accepting, writes every connection's held points, then closes them. A store that does not answer within
   * `waitMs` does not hold shutdown: the connections are cut and what they held is lost (and logged).
   */
  async close(waitMs = SHUTDOWN_WAIT_MS): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    let timer: NodeJS.Timeout | undefined;
    const finished = Promise.all([...this.connections].map((connection) => this.finish(connection, 'shutdown')));
    const late = await Promise.race([
      finished.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), waitMs);
      }),
    ]);
    clearTimeout(timer);
    if (late) {
      const held = [...this.connections].reduce((n, connection) => n + connection.batch.size, 0);
      this.deps.log.error(
        { protocol: this.name, connections: this.connections.size, held },
        'shutdown did not wait for the store',
      );
      for (const connection of this.connections) connection.socket.destroy();
    }
    await closed;
  }

  private accept(socket: Socket): void {
    const { metrics } = this.deps;
    if (this.connections.size >= this.settings.maxConnections) {
      metrics.closed(this.name, 'connection_limit');
      socket.destroy();
      return;
    }
    const connection: Connection = {
      socket,
      client: `${this.name}@${socket.remoteAddress ?? 'unknown'}`,
      batch: new LineBatch(this.deps.keys),
      rest: undefined,
      timer: undefined,
      writing: undefined,
      closing: false,
    };
    this.connections.add(connection);
    metrics.connections(this.name, 1);
    socket.setNoDelay(true);
    socket.setTimeout(this.settings.idleTimeoutMs);
    socket.on('data', (chunk: Buffer) => this.receive(connection, chunk));
    socket.on('end', () => {
      if (connection.rest !== undefined && connection.rest.length > 0)
        this.reject(connection, 'unterminated', 'the connection closed in the middle of a line');
      connection.rest = undefined;
      void this.finish(connection);
    });
    // While a batch is written the socket is paused and quiet on purpose: the store's own timeouts bound that wait.
    socket.on('timeout', () => {
      if (connection.writing === undefined) void this.finish(connection, 'idle');
      // A timeout fires once; without traffic nothing would arm it again.
      else socket.setTimeout(this.settings.idleTimeoutMs);
    });
    // A reset by the client: 'close' follows, and what was held is still written.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!this.connections.delete(connection)) return;
      metrics.connections(this.name, -1);
      if (!connection.closing) void this.finish(connection);
    });
  }

  private receive(connection: Connection, chunk: Buffer): void {
    if (connection.closing) return;
    const { maxLineBytes } = this.settings;
    const data = connection.rest === undefined ? chunk : Buffer.concat([connection.rest, chunk]);
    connection.rest = undefined;
    let start = 0;
    const nowMs = Date.now();
    for (let end = data.indexOf(10, start); end >= 0; end = data.indexOf(10, start)) {
      if (end - start > maxLineBytes) return this.tooLong(connection, end - start);
      // Telnet clients end lines with CRLF.
      const stop = end > start && data[end - 1] === 13 ? end - 1 : end;
      this.line(connection, data.toString('utf8', start, stop), nowMs);
      start = end + 1;
      if (connection.closing) return;
    }
    if (data.length - start > maxLineBytes) return this.tooLong(connection, data.length - start);
    if (start < data.length) connection.rest = data.subarray(start);
  }

  private line(connection: Connection, text: string, nowMs: number): void {
    if (HTTP_REQUEST_LINE.test(text)) return this.httpRequest(connection, text);
    const outcome = this.protocol.parse(text, nowMs);
    if (outcome === undefined) return;
    if ('reply' in outcome) {
      const { socket } = connection;
      socket.write(outcome.reply);
      if (socket.writableLength > MAX_REPLY_BACKLOG_BYTES) {
        this.deps.metrics.closed(this.name, 'reply_backlog');
        this.end(connection);
      }
      return;
    }
    if ('reject' in outcome) return this.reject(connection, outcome.reject, outcome.message, text);
    try {
      connection.batch.add(outcome.point);
    } catch (error) {
      const reason = refusalOf(error);
      if (reason === undefined) throw error;
      return this.reject(connection, 'invalid', reason, text);
    }
    if (connection.batch.size >= this.settings.batchPoints) void this.flush(connection);
    else connection.timer ??= setTimeout(() => void this.flush(connection), this.settings.batchMs);
  }

  /**
   * Writes what the connection holds, one batch at a time, with its socket paused, so a sender faster than the
   * store waits in its own socket buffers, not in our memory.
   */
  private flush(connection: Connection): Promise<void> {
    clearTimeout(connection.timer);
    connection.timer = undefined;
    const { socket } = connection;
    if (connection.writing !== undefined) {
      // The write under way takes these points next.
      socket.pause();
      return connection.writing;
    }
    if (connection.batch.size === 0) return Promise.resolve();
    socket.pause();
    connection.writing = (async () => {
      while (connection.batch.size > 0) {
        const points = connection.batch.size;
        try {
          await this.deps.write(connection.batch.take(), connection.client);
          this.deps.metrics.written(this.name, points);
        } catch (error) {
          // The sender learns of it only by the connection closing: the protocols have no answers to writes.
          this.deps.metrics.rejected(this.name, 'store', points + connection.batch.size);
          connection.batch.take();
          this.deps.metrics.closed(this.name, 'store');
          this.deps.log.error(
            { err: error, protocol: this.name, client: connection.client, points },
            'ingest write failed',
          );
          connection.closing = true;
          socket.destroy();
          return;
        }
      }
    })().finally(() => {
      connection.writing = undefined;
      if (!connection.closing) socket.resume();
    });
    return connection.writing;
  }

  /** Writes what the connection holds, then closes it (`reason` when the gateway is the one closing). */
  private async finish(connection: Connection, reason?: CloseReason): Promise<void> {
    if (connection.closing && reason !== undefined) return connection.writing;
    connection.closing = true;
    connection.socket.pause();
    if (reason !== undefined) this.deps.metrics.closed(this.name, reason);
    await this.flush(connection);
    if (!connection.socket.destroyed) this.end(connection);
  }

  /** Ends the socket, and destroys it if the client does not close its side in time. */
  private end(connection: Connection): void {
    connection.closing = true;
    connection.socket.end();
    setTimeout(() => connection.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  private tooLong(connection: Connection, bytes: number): void {
    connection.rest = undefined;
    this.reject(connection, 'line_too_long', `a line is longer than ${this.settings.maxLineBytes} bytes (${bytes})`);
    connection.closing = true;
    this.deps.metrics.closed(this.name, 'line_too_long');
    // The lines before it were whole: they are written, then the connection goes.
    void this.flush(connection).then(() => connection.socket.destroy());
  }

  /**
   * Any web page a browser on a machine that reaches the port shows can POST to it, and the lines of its body would be
   * points: the connection goes at the request line, before a body line is read (Redis does the same).
   */
  private httpRequest(connection: Connection, text: string): void {
    this.reject(connection, 'http_request', 'an HTTP request is not a line of the protocol', text);
    connection.closing = true;
    this.deps.metrics.closed(this.name, 'http_request');
    void this.flush(connection).then(() => connection.socket.destroy());
  }

  private reject(connection: Connection, reason: RejectReason, message: string, line?: string): void {
    this.deps.metrics.rejected(this.name, reason);
    const nowMs = Date.now();
    if (nowMs - this.warnedAtMs < WARN_PERIOD_MS) {
      this.suppressed++;
      return;
    }
    this.deps.log.warn(
      {
        protocol: this.name,
        client: connection.client,
        reason,
        ...(line === undefined ? {} : { line: line.length > 200 ? `${line.slice(0, 200)}…` : line }),
        ...(this.suppressed > 0 ? { suppressedSinceLastWarning: this.suppressed } : {}),
      },
      `${this.name} line refused: ${message}`,
    );
    this.warnedAtMs = nowMs;
    this.suppressed = 0;
  }
}
