/**
 * The Cassandra store: the Store interface over KairosDB's keyspace through cassandra-driver 4, each call on the live
 * connection. It constructs without Cassandra (the gateway starts and /ready says 503); keyspace-link.ts connects in
 * the background and again after failures, and recovers on its own when the keyspace or a table is gone.
 */
import type cassandra from 'cassandra-driver';
import type { HostState, PingReport, SchemaRepairStatus } from '../../model/health.js';
import type { IndexedTags, RowKey, RowSpec, ScanOptions, Store, TaggedRowKeys } from '../store.js';
import type { Slice } from '../../model/series.js';
import type { KeyLimits } from '../../model/key-limits.js';
import type { WriteBatch } from '../../model/write-batch.js';
import { deleteName, deletePartitionRange } from './delete.js';
import type { ExecutorStats, StatementCounts as ClientCounts } from '../cassandra-client/executor.js';
import {
  readLegacyRowKeys,
  readMetricNames,
  readRowKeys,
  readRowKeysAt,
  readRowTimes,
  readTagIndexed,
} from './index-reads.js';
import { CASSANDRA_KEY_LIMITS } from './key-limits.js';
import { installLeanBatchHook } from './lean-batch-hook.js';
import { installLeanPageHook } from '../cassandra-client/lean-page-hook.js';
import { Limiter } from '../cassandra-client/limiter.js';
import { resolveOptions, type CassandraStoreOptions, type ResolvedOptions } from './options.js';
import { scanPartition, type ScanPageCounts } from './scan.js';
import { statementsFor, type StatementName, type Statements } from './statements.js';
import { CassandraServiceIndex } from './service-index.js';
import { MutationClock } from './timestamps.js';
import { writePartitions } from './write.js';
import { WrittenIndex } from './written-index.js';
import { KeyspaceLink, type Connection } from './keyspace-link.js';

export type { CassandraStoreOptions } from './options.js';
/** Requests the store sent, by statement. */
export type StatementCounts = ClientCounts<StatementName>;
export type { ScanPageCounts } from './scan.js';

export class CassandraStore implements Store {
  readonly kind = 'cassandra' as const;
  readonly limits: KeyLimits = CASSANDRA_KEY_LIMITS;
  readonly readAhead: number;
  readonly concurrentReads: number;
  private readonly options: ResolvedOptions;
  private readonly st: Statements;
  private readonly limiter: Limiter;
  private readonly stats: ExecutorStats<StatementName> = { counts: {}, inFlight: 0 };
  private readonly pages: ScanPageCounts = { lean: 0, driver: 0 };
  private readonly clock = new MutationClock();
  /** Index rows written recently, which writes skip; forgotten by deletes and whenever the schema step runs. */
  private readonly written: WrittenIndex;
  /** KairosDB's keyspace, connected and kept whole. */
  private readonly keyspace: KeyspaceLink;
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
    this.written = new WrittenIndex({
      maxEntries: this.options.indexCacheEntries,
      maxAgeMs: this.options.indexCacheMs,
    });
    this.serviceIndex = new CassandraServiceIndex(async () => (await this.connected()).exec, this.st, this.clock);
    this.keyspace = new KeyspaceLink(this.options, this.st, this.limiter, this.stats, this.clock, this.written);
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

  async rowKeysAt(metric: string, rowTimes: readonly number[]): Promise<RowKey[][]> {
    return readRowKeysAt((await this.connected()).exec, this.st, metric, rowTimes);
  }

  async indexedTags(metric: string, rowTime: number): Promise<IndexedTags> {
    return (await this.connected()).coverage.indexedTags(metric, rowTime);
  }

  async tagIndexedRowKeys(
    metric: string,
    rowTime: number,
    tag: string,
    value: string,
    limit?: number,
  ): Promise<TaggedRowKeys> {
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
    await writePartitions(exec, this.st, spec, batch, this.clock.next(), {
      encoder: this.options.writeEncoder,
      tagIndex: this.options.tagIndexedMetrics,
      written: this.written,
    });
  }

  async deleteRange(key: RowKey, startMs: number, endMs: number): Promise<void> {
    const { exec, spec } = await this.connected();
    await deletePartitionRange(
      exec,
      this.st,
      spec,
      key,
      startMs,
      endMs,
      this.clock.next(),
      this.written,
      this.options.tagIndexedMetrics,
    );
  }

  async deleteMetricName(metric: string): Promise<void> {
    await deleteName((await this.connected()).exec, this.st, metric, this.clock.next(), this.written);
  }

  /**
   * Answers with the driver's view of every node (with one down the store still answers, and says so) and with what
   * of the schema was lost and created again since the store started.
   */
  async ping(): Promise<PingReport> {
    const { exec } = await this.connected();
    await exec.ping(this.st.ping);
    const recreated = this.keyspace.recreated;
    const report = hostsReport(exec.client);
    return recreated.length === 0 ? report : { ...report, recreated };
  }

  get schemaRepair(): SchemaRepairStatus {
    return this.keyspace.schemaRepair;
  }

  close(): Promise<void> {
    return this.keyspace.close();
  }

  private connected(): Promise<Connection> {
    return this.keyspace.connected();
  }
}

/**
 * The nodes as the driver sees them: down once its connections to a node broke (at once for a crashed process) until
 * its reconnection policy gets one again (within 10 s of the node answering) or Cassandra's gossip says it is back.
 */
function hostsReport(client: cassandra.Client): PingReport {
  const hosts: HostState[] = client.hosts
    .values()
    .map((host) => ({ address: host.address, datacenter: host.datacenter, up: host.isUp() }))
    .sort((a, b) => a.address.localeCompare(b.address, 'en', { numeric: true }));
  return { status: hosts.every((host) => host.up) ? 'ready' : 'degraded', hosts };
}
