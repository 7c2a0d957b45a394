/**
 * /metrics of the TCP line protocols: their points written and lines refused go to every ingest protocol's families
 * (ingest-metrics.ts); their connections, open and closed, have families of their own. Every label comes from a fixed
 * list (the protocols, the reasons below), never from what a sender wrote.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { IngestMetrics } from './ingest-metrics.js';

export type TcpProtocol = 'telnet' | 'graphite';

/** Why a line was refused or its points lost. */
export type RejectReason =
  /** Not the protocol's syntax (too few words, a value that is no number). */
  | 'malformed'
  /** Well formed, refused by the write validation (an empty tag, a timestamp out of range, a key too long). */
  | 'invalid'
  /** A telnet command KairosDB does not have. */
  | 'unknown_command'
  /** A line longer than TCP_INGEST_MAX_LINE_BYTES: the connection is closed. */
  | 'line_too_long'
  /** Bytes after the last newline when the sender closed: a cut line is never guessed at. */
  | 'unterminated'
  /** Points lost because the store refused their batch: the connection is closed. */
  | 'store'
  /** An HTTP request line (a web page posting to the port): the connection is closed before its body is read. */
  | 'http_request';

/** Why the gateway closed a connection (or refused one). */
export type CloseReason =
  | 'idle'
  | 'line_too_long'
  | 'store'
  | 'shutdown'
  | 'connection_limit'
  | 'reply_backlog'
  | 'http_request';

export class TcpIngestMetrics {
  private readonly open: Gauge<'protocol'>;
  private readonly closes: Counter<'protocol' | 'reason'>;

  constructor(
    registry: Registry,
    private readonly ingest: IngestMetrics,
  ) {
    const registers = [registry];
    this.open = new Gauge({
      name: 'kairograph_ingest_tcp_connections',
      help: 'Open connections of a TCP line protocol',
      labelNames: ['protocol'],
      registers,
    });
    this.closes = new Counter({
      name: 'kairograph_ingest_tcp_connections_closed_total',
      help: 'Connections of a TCP line protocol the gateway closed or refused, by reason',
      labelNames: ['protocol', 'reason'],
      registers,
    });
  }

  written(protocol: TcpProtocol, points: number): void {
    this.ingest.pointsWritten(protocol, points);
  }

  rejected(protocol: TcpProtocol, reason: RejectReason, count = 1): void {
    // Graphite has no commands: a telnet reason its parser never gives.
    this.ingest.reject(protocol, reason as never, count);
  }

  connections(protocol: TcpProtocol, change: 1 | -1): void {
    this.open.inc({ protocol }, change);
  }

  closed(protocol: TcpProtocol, reason: CloseReason): void {
    this.closes.inc({ protocol, reason });
  }
}
