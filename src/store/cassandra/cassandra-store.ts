/**
 * The Cassandra store: KairosDB's keyspace through cassandra-driver 4. It constructs without Cassandra (the gateway
 * starts and /ready says 503), connects in the background and again after failures, and recovers on its own, also
 * when the keyspace or a table is gone: it creates them again as at start.
 */
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../../errors.js';
import type { HostState, IndexedTags, PingReport, RowKey, RowSpec, ScanOptions, Slice, Store, StoreLimits, TaggedRowKeys, WriteBatch } from '../store.js';
import type { TagIndexCoverage } from '../tag-index.js';
import { deleteName, deletePartitionRange } from './delete.js';
import { Executor, schemaLostError, type ExecutorStats, type StatementCounts } from './executor.js';
import { readLegacyRowKeys, readMetricNames, readRowKeys, readRowTimes, readTagIndexed } from './index-reads.js';
import { CASSANDRA_KEY_LIMITS } from './key-limits.js';
import { installLeanBatchHook } from './lean-batch-hook.js';
import { installLeanPageHook, leanPagesEncoding } from './lean-page-hook.js';
import { Limiter } from './limiter.js';
import { Reconnecting } from './reconnecting.js';
import { clientOptions } from './client-options.js';
import { resolveOptions, type CassandraStoreOptions, type ResolvedOptions } from './options.js';
import { scanPartition, type ScanPageCounts } from './scan.js';
import { createMissingSchema, describeMissingSchema, findMissingSchema, readSpec } from './schema.js';
import { statementsFor, type Statements } from './statements.js';
import { readCoverage } from './tag-index-coverage.js';
import { CassandraServiceIndex } from './service-index.js';
import { MillisecondTimestampGenerator, MutationClock } from './timestamps.js';
import { writePartitions } from './write.js';

export type { CassandraStoreOptions } from './options.js';
export type { StatementCounts } from './executor.js';
export type { ScanPageCounts } from './scan.js';

interface Connection {
  readonly exec: Executor;
  readonly spec: RowSpec;
  /** Which tags tag_indexed_row_keys answers for, per metric and row time (read with the spec). */
  readonly coverage: TagIndexCoverage;
}

/** The keyspace or a table is gone and is being created again; every request fails with this meanwhile. */
interface Repair {
  /** What is gone: as a request found it, then as the schema lookup found it. */
  reason: string;
  /** What this attempt's schema lookup found missing; undefined until it ran, or when something else re-created it. */
  found: string | undefined;
  lastFailure: string | undefined;
}

export class CassandraStore implements Store {
  readonly kind = 'cassandra' as const;
  readonly limits: StoreLimits = CASSANDRA_KEY_LIMITS;
  readonly readAhead: number;
  readonly concurrentReads: number;
  private readonly options: ResolvedOptions;
  private readonly st: Statements;
  private readonly limiter: Limiter;
  private readonly stats: ExecutorStats = { counts: {}, inFlight: 0 };
  private readonly pages: ScanPageCounts = { lean: 0, driver: 0 };
  private readonly clock = new MutationClock();
  private readonly link: Reconnecting<Connection>;
  private repair: Repair | undefined;
  private repairRun: Promise<void> | undefined;
  private repairTimer: NodeJS.Timeout | undefined;
  private closed = false;
  readonly serviceIndex: CassandraServiceIndex;

  /**
   * Validates the options (throws on a bad one, or when the lean decoder or encoder cannot hook the installed driver) and
   * starts connecting in the background.
   */
  constructor(options: CassandraStoreOptions) {
    this.options = resolveOptions(options);
    if (this.options.scanDecoder === 'lean') installLeanPageHook();
    if (this.options.writeEncoder === 'lean') installLeanBatchHook();
    this.readAhead = this.options.readAhead;
    // As many as the limiter lets out at once: more would wait for a permit anyway.
    this.concurrentReads = this.options.concurrency;
    this.st = statementsFor(this.options.keyspace);
    this.limiter = new Limiter(this.options.concurrency);
    this.serviceIndex = new CassandraServiceIndex(async () => (await this.connected()).exec, this.st, this.clock);
    const { log, keyspace, contactPoints, reconnectDelayMs } = this.options;
    this.link = new Reconnecting(
      () => this.connectOnce(),
      (connection) => connection.exec.client.shutdown(),
      reconnectDelayMs,
      {
        connected: (connection) => log.info({ keyspace, spec: connection.spec }, 'connected to Cassandra'),
        failed: (error, repeated) => {
          if (!repeated) log.warn({ err: error instanceof Error ? error.message : String(error), contactPoints, retryMs: reconnectDelayMs }, 'cannot reach Cassandra (check CASSANDRA_CONTACT_POINTS and CASSANDRA_LOCAL_DC); retrying in the background: /ready answers 503 until it does');
        },
      },
    );
  }

  /** A store that is connected, with its schema and spec in place; rejects (and closes it) if the first attempt fails. */
  static async open(options: CassandraStoreOptions): Promise<CassandraStore> {
    const store = new CassandraStore(options);
    try {
      await store.connected();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** Requests sent to Cassandra since the store was made, by statement: a page, a batch, a single statement each. */
  get statements(): Readonly<StatementCounts> {
    return { ...this.stats.counts };
  }

  /** data_points pages the scans decoded, lean or through the driver's rows (a lean store counts none of the latter). */
  get scanPages(): Readonly<ScanPageCounts> {
    return { ...this.pages };
  }

  /** Driver requests sent and not yet answered (a page an aborted scan no longer wants runs to its end). */
  get inFlight(): number {
    return this.stats.inFlight;
  }

  async spec(): Promise<RowSpec> {
    return (await this.connected()).spec;
  }

  async metricNames(prefix = '', limit?: number): Promise<string[]> {
    return readMetricNames((await this.connected()).exec, this.st, prefix, limit);
  }

  async rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]> {
    const { exec, spec } = await this.connected();
    return readRowTimes(exec, this.st, spec, metric, startMs, endMs);
  }

  async rowKeys(metric: string, rowTime: number): Promise<RowKey[]> {
    return readRowKeys((await this.connected()).exec, this.st, metric, rowTime);
  }

  async indexedTags(metric: string, rowTime: number): Promise<IndexedTags> {
    return (await this.connected()).coverage.indexedTags(metric, rowTime);
  }

  async tagIndexedRowKeys(metric: string, rowTime: number, tag: string, value: string, limit?: number): Promise<TaggedRowKeys> {
    return readTagIndexed((await this.connected()).exec, this.st, metric, rowTime, tag, value, limit);
  }

  async legacyRowKeys(metric: string, startMs: number, endMs: number): Promise<RowKey[]> {
    const { exec, spec } = await this.connected();
    return readLegacyRowKeys(exec, this.st, spec, metric, startMs, endMs);
  }

  async *scan(key: RowKey, startMs: number, endMs: number, options: ScanOptions = {}): AsyncGenerator<Slice> {
    options.signal?.throwIfAborted();
    const { exec, spec } = await this.connected();
    yield* scanPartition(exec, this.st, spec, this.options.fetchSize, key, startMs, endMs, options, this.pages);
  }

  async write(batch: WriteBatch): Promise<void> {
    const { exec, spec } = await this.connected();
    await writePartitions(exec, this.st, spec, batch, this.clock.next(), this.options.writeEncoder, this.options.tagIndexedMetrics);
  }

  async deleteRange(key: RowKey, startMs: number, endMs: number): Promise<void> {
    const { exec, spec } = await this.connected();
    await deletePartitionRange(exec, this.st, spec, key, startMs, endMs, this.clock.next(), this.options.tagIndexedMetrics);
  }

  async deleteMetricName(metric: string): Promise<void> {
    await deleteName((await this.connected()).exec, this.st, metric, this.clock.next());
  }

  /** Answers with the driver's view of every node: with one down the store still answers, and says so. */
  async ping(): Promise<PingReport> {
    const { exec } = await this.connected();
    await exec.ping(this.st.ping);
    return hostsReport(exec.client);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.repairTimer);
    await this.repairRun;
    await this.link.close();
  }

  /**
   * The live connection (reconnecting.ts). While the schema is being re-created it fails at once: DDL on a busy
   * cluster can take minutes.
   */
  private async connected(): Promise<Connection> {
    if (this.repair !== undefined) throw schemaLostError(this.repair.reason, this.repair.lastFailure);
    return this.link.get();
  }

  /** A fresh client per attempt: a client whose connect() failed cannot be connected again. */
  private async connectOnce(): Promise<Connection> {
    const client = new cassandra.Client(
      clientOptions(this.options, {
        // KairosDB writes in milliseconds: a delete of ours must shadow what KairosDB wrote, and the other way round.
        timestampGeneration: new MillisecondTimestampGenerator() as unknown as cassandra.policies.timestampGeneration.TimestampGenerator,
        ...(this.options.scanDecoder === 'lean' ? { encoding: leanPagesEncoding(this.options.keyspace) } : {}),
      }),
    );
    try {
      await client.connect();
      const exec: Executor = new Executor(client, this.limiter, this.stats, this.options, (reason) => this.schemaLost(exec, reason));
      return { exec, ...(await this.prepareKeyspace(exec)) };
    } catch (error) {
      await client.shutdown().catch(() => {});
      throw error;
    }
  }

  /**
   * The start-up schema step, also run to recover: creates the keyspace and tables that are missing (never alters
   * one), then reads the spec, writing it first as for a new keyspace when its rows are gone, and the tag index's
   * coverage, marking the configured tags that have none yet.
   */
  private async prepareKeyspace(exec: Executor, found: (missing: string) => void = () => {}): Promise<{ spec: RowSpec; coverage: TagIndexCoverage }> {
    const missing = await findMissingSchema(exec, this.options);
    const described = describeMissingSchema(this.options.keyspace, missing);
    if (described !== undefined) found(described);
    await createMissingSchema(exec, this.options, missing);
    exec.schemaReady();
    const spec = await readSpec(exec, this.st, this.options, this.clock.next());
    const coverage = await readCoverage(exec, this.st, this.options.tagIndexedMetrics, spec, Date.now(), this.clock.next());
    return { spec, coverage };
  }

  /**
   * A request found the keyspace or a table gone (Cassandra lost its schema, or someone dropped it). The first to
   * notice starts one repair in the background; requests fail at once until it is done, so no caller waits on DDL
   * and concurrent failures do not each send their own.
   */
  private schemaLost(exec: Executor, reason: string): void {
    if (this.closed || this.repair !== undefined || this.link.value?.exec !== exec) return;
    this.repair = { reason, found: undefined, lastFailure: undefined };
    this.options.log.warn({ keyspace: this.options.keyspace, reason }, "KairosDB's schema is gone; re-creating what is missing");
    this.startRepair(exec);
  }

  /** One repair attempt; after a failure the next one runs a reconnect delay later, as connection attempts do. */
  private startRepair(exec: Executor): void {
    const repair = this.repair!;
    repair.found = undefined;
    const run = this.prepareKeyspace(exec, (missing) => {
      repair.reason = missing;
      repair.found = missing;
    }).then(
      ({ spec, coverage }) => {
        this.repairRun = undefined;
        if (this.closed) return;
        this.link.replace({ exec, spec, coverage });
        this.repair = undefined;
        this.options.log.info({ keyspace: this.options.keyspace, found: repair.found ?? 'nothing missing', spec }, "KairosDB's schema re-created");
      },
      (error: unknown) => {
        this.repairRun = undefined;
        const message = failureMessage(error);
        if (message !== repair.lastFailure) {
          this.options.log.warn({ keyspace: this.options.keyspace, err: message, retryMs: this.options.reconnectDelayMs }, "cannot re-create KairosDB's schema; retrying in the background");
        }
        repair.lastFailure = message;
        if (this.closed) return;
        this.repairTimer = setTimeout(() => this.startRepair(exec), this.options.reconnectDelayMs);
        this.repairTimer.unref();
      },
    );
    this.repairRun = run;
  }
}

/** A failure's own words: a StoreUnavailableError's message would repeat "the cassandra store is unavailable". */
function failureMessage(error: unknown): string {
  const inner = error instanceof StoreUnavailableError && error.cause instanceof Error ? error.cause : error;
  return inner instanceof Error ? inner.message : String(inner);
}

/**
 * The nodes as the driver sees them: down once its connections to a node broke (at once for a crashed process) until
 * its reconnection policy gets one again (within 10 s of the node answering) or Cassandra's gossip says it is back.
 */
export function hostsReport(client: cassandra.Client): PingReport {
  const hosts: HostState[] = client.hosts
    .values()
    .map((host) => ({ address: host.address, datacenter: host.datacenter, up: host.isUp() }))
    .sort((a, b) => a.address.localeCompare(b.address, 'en', { numeric: true }));
  return { status: hosts.every((host) => host.up) ? 'ready' : 'degraded', hosts };
}
