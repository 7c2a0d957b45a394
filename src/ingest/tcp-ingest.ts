/**
 * The gateway's TCP listeners for collectors (KairosDB's telnet, Graphite's plaintext), each on when its port is set:
 * they write into the primary source through the app's write path, as the principal of their protocol, since the
 * protocols carry no credentials (their protection is the address they listen on).
 */
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { RequestScopes } from '../app/request-scope.js';
import { writeBatch } from '../app/write.js';
import type { Logger } from '../lib/log.js';
import type { Principal } from '../model/principal.js';
import type { Sources } from '../sources/sources.js';
import { graphiteProtocol } from './graphite-protocol.js';
import { TcpLineServer, type LineProtocol, type TcpLineSettings } from './tcp-line-server.js';
import { TcpIngestMetrics, type TcpProtocol } from './tcp-metrics.js';
import type { IngestMetrics } from './ingest-metrics.js';
import { TELNET } from './telnet-protocol.js';

interface TcpIngestSettings {
  /** TELNET_HOST, TELNET_PORT (0: off). */
  readonly telnetHost: string;
  readonly telnetPort: number;
  /** GRAPHITE_HOST, GRAPHITE_PORT (0: off), GRAPHITE_HOST_TAG_POSITION. */
  readonly graphiteHost: string;
  readonly graphitePort: number;
  readonly graphiteHostTagPosition: number;
  /** TCP_INGEST_*: each listener's. */
  readonly tcpIngestMaxConnections: number;
  readonly tcpIngestIdleTimeoutMs: number;
  readonly tcpIngestMaxLineBytes: number;
  readonly tcpIngestBatchPoints: number;
  readonly tcpIngestBatchMs: number;
  /** MAX_WRITE_POINTS: a batch never holds more. */
  readonly maxWritePoints: number;
}

export interface TcpIngestDeps {
  /** The sources requests use (the shared reads' own), so a write invalidates the cache and wakes live queries. */
  readonly sources: Sources;
  readonly scopes: RequestScopes;
  readonly metrics: Registry;
  /** Points written and lines refused, in the families every ingest protocol counts in. */
  readonly ingestMetrics: IngestMetrics;
  readonly log: Logger;
  readonly settings: TcpIngestSettings;
}

export class TcpIngest {
  private readonly servers: { protocol: TcpProtocol; host: string; server: TcpLineServer }[] = [];
  private readonly bound = new Map<TcpProtocol, AddressInfo>();

  constructor(deps: TcpIngestDeps) {
    const { settings, sources, scopes, log } = deps;
    const metrics = new TcpIngestMetrics(deps.metrics, deps.ingestMetrics);
    const source = sources.primary;
    const add = (protocol: LineProtocol, host: string, port: number) => {
      if (port === 0) return;
      const principal: Principal = {
        name: protocol.name,
        authenticated: false,
        scopes: new Set(['write']),
        sources: new Set([source.name]),
      };
      const write = async (batch: Parameters<typeof writeBatch>[2], client: string) => {
        const scope = scopes.open({ principal, client });
        try {
          await writeBatch(scope, source, batch);
        } finally {
          scope.dispose();
        }
      };
      const lineSettings: TcpLineSettings = {
        host,
        port,
        maxConnections: settings.tcpIngestMaxConnections,
        idleTimeoutMs: settings.tcpIngestIdleTimeoutMs,
        maxLineBytes: settings.tcpIngestMaxLineBytes,
        batchPoints: Math.min(settings.tcpIngestBatchPoints, settings.maxWritePoints),
        batchMs: settings.tcpIngestBatchMs,
      };
      const server = new TcpLineServer(protocol, lineSettings, {
        write,
        keys: source.limits,
        metrics,
        log: log.child({ component: protocol.name }),
      });
      this.servers.push({ protocol: protocol.name, host, server });
    };
    add(TELNET, settings.telnetHost, settings.telnetPort);
    add(
      graphiteProtocol({ hostTagPosition: settings.graphiteHostTagPosition }),
      settings.graphiteHost,
      settings.graphitePort,
    );
  }

  /**
   * Binds every configured listener; rejects with the first that cannot bind: Node's error (its code, address and
   * port), with `protocol` added so start-up can name the setting.
   */
  async listen(): Promise<void> {
    for (const { protocol, server } of this.servers) {
      try {
        this.bound.set(protocol, await server.listen());
      } catch (error) {
        throw Object.assign(error as Error, { protocol });
      }
    }
  }

  /** Where each listener is bound, once listening. */
  address(protocol: TcpProtocol): AddressInfo | undefined {
    return this.bound.get(protocol);
  }

  /** The listeners, for start-up's messages: protocol, host and port. */
  get listeners(): readonly { protocol: TcpProtocol; host: string }[] {
    return this.servers.map(({ protocol, host }) => ({ protocol, host }));
  }

  /** Stops accepting connections, writes what each holds, and closes them. */
  async close(): Promise<void> {
    await Promise.all(this.servers.map(({ server }) => server.close()));
  }
}
