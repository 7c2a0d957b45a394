/**
 * What each ingest protocol wrote and turned away, for /metrics: points written, and what was not written by protocol
 * and reason. Labels come from the fixed table below only (never from what a sender sent), and every pair is there at
 * 0 from the start, so a rate over it sees the first reject.
 */
import { Counter, type Registry } from 'prom-client';

/** Each protocol and the reasons it counts; the unit is the protocol's own (docs/ingest.md). */
const REJECT_REASONS = {
  /**
   * Samples: `stale_marker`, `nan`, `infinite` are left out by choice; `histogram` and `exemplar` count native
   * histogram samples and exemplars, not stored; `invalid` the samples of a request refused whole; `undecodable` the
   * requests whose body could not be read at all (their samples cannot be counted).
   */
  remote_write: ['stale_marker', 'nan', 'infinite', 'histogram', 'exemplar', 'invalid', 'undecodable'],
  /** Lines: `invalid` a line that does not parse or validate; `refused` the lines of a body refused whole. */
  line_protocol: ['invalid', 'refused'],
  /** Lines, and for `store` the points of a batch the store refused (src/ingest/tcp-metrics.ts says each reason). */
  telnet: ['malformed', 'invalid', 'unknown_command', 'line_too_long', 'unterminated', 'store', 'http_request'],
  graphite: ['malformed', 'invalid', 'line_too_long', 'unterminated', 'store', 'http_request'],
} as const;

export type IngestProtocol = keyof typeof REJECT_REASONS;
export type RejectReason<P extends IngestProtocol> = (typeof REJECT_REASONS)[P][number];

export class IngestMetrics {
  private readonly written: Counter<'protocol'>;
  private readonly rejected: Counter<'protocol' | 'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.written = new Counter({
      name: 'kairograph_ingest_points_written_total',
      help: 'Points written by the ingest protocols (Prometheus remote write, InfluxDB line protocol, KairosDB telnet, Graphite), by protocol, counted once durable',
      labelNames: ['protocol'],
      registers,
    });
    this.rejected = new Counter({
      name: 'kairograph_ingest_rejected_total',
      help: 'What the ingest protocols did not write, by protocol and reason: samples for remote_write (requests for reason undecodable), lines for the others (points for reason store)',
      labelNames: ['protocol', 'reason'],
      registers,
    });
    for (const [protocol, reasons] of Object.entries(REJECT_REASONS)) {
      this.written.inc({ protocol }, 0);
      for (const reason of reasons) this.rejected.inc({ protocol, reason }, 0);
    }
  }

  pointsWritten(protocol: IngestProtocol, points: number): void {
    if (points > 0) this.written.inc({ protocol }, points);
  }

  reject<P extends IngestProtocol>(protocol: P, reason: RejectReason<P>, count: number): void {
    if (count > 0) this.rejected.inc({ protocol, reason }, count);
  }
}
