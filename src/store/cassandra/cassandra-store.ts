/**
 * The Cassandra store: KairosDB's keyspace through cassandra-driver 4. It constructs without Cassandra (the gateway
 * starts and /ready says 503), connects in the background and again after failures, and recovers on its own, also
 * when the keyspace or a table is gone, or listed by the node's catalog but not served: it creates them again as at
 * start, and says what was lost.
 */
import cassandra from 'cassandra-driver';
import type { HostState, PingReport, SchemaRepairStatus } from '../../model/health.js';
import type { IndexedTags, RowKey, RowSpec, ScanOptions, Store, TaggedRowKeys } from '../store.js';
import type { Slice } from '../../model/series.js';
import type { KeyLimits } from '../../model/key-limits.js';
import type { WriteBatch } from '../../model/write-batch.js';
import type { TagIndexCoverage } from '../tag-index.js';
import { deleteName, deletePartitionRange } from './delete.js';
import { Executor, type ExecutorStats, type StatementCounts as ClientCounts } from '../cassandra-client/executor.js';
import { kairosdbSchema, schemaLostError } from './schema-loss.js';
import { retryAfterSeconds } from '../cassandra-client/store-errors.js';
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
import { leanPagesEncoding } from './lean-pages.js';
import { Limiter } from '../cassandra-client/limiter.js';
import { Reconnecting } from '../cassandra-client/reconnecting.js';
import { clientOptions } from '../cassandra-client/client-options.js';
import { resolveOptions, type CassandraStoreOptions, type ResolvedOptions } from './options.js';
import { scanPartition, type ScanPageCounts } from './scan.js';
import {
  createMissing,
  ddlHost,
  describeAnswers,
  describeCatalog,
  describeMissing,
  findMissing,
  readCatalog,
  readSpec,
  SchemaNotCreatedError,
  type Catalog,
} from './schema.js';
import {
  catalogChange,
  failureMessage,
  findLosses,
  lossMessages,
  repairDelayMs,
  SchemaLedger,
  type Loss,
  type Repair,
  type StepView,
} from './schema-repair.js';
import { statementsFor, type StatementName, type Statements, type StoreExecutor } from './statements.js';
import { readCoverage } from './tag-index-coverage.js';
import { CassandraServiceIndex } from './service-index.js';
import { MillisecondTimestampGenerator, MutationClock } from './timestamps.js';
import { writePartitions } from './write.js';

export type { CassandraStoreOptions } from './options.js';
/** Requests the store sent, by statement. */
export type StatementCounts = ClientCounts<StatementName>;
export type { ScanPageCounts } from './scan.js';

interface Connection {
  readonly exec: StoreExecutor;
  readonly spec: RowSpec;
  /** Which tags tag_indexed_row_keys answers for, per metric and row time (read with the spec). */
  readonly coverage: TagIndexCoverage;
}

/** A completed schema step: the connection's spec and coverage, the catalog it left, and what was lost. */
interface Prepared {
  readonly spec: RowSpec;
  readonly coverage: TagIndexCoverage;
  readonly catalog: Catalog;
  readonly losses: readonly Loss[];
}

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
  private readonly link: Reconnecting<Connection>;
  private repair: Repair | undefined;
  private repairRun: Promise<void> | undefined;
  private repairTimer: NodeJS.Timeout | undefined;
  /** The catalog as the last complete schema step left it: what later looks compare with. */
  private known: Catalog | undefined;
  private readonly ledger = new SchemaLedger();
  private checkTimer: NodeJS.Timeout | undefined;
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
          if (repeated) return;
          const err = error instanceof Error ? error.message : String(error);
          if (error instanceof SchemaNotCreatedError)
            log.warn(
              { keyspace, err, retryMs: reconnectDelayMs },
              "KairosDB's schema is incomplete and CASSANDRA_CREATE_SCHEMA is false: create it; checking again in the background, /ready answers 503 until it exists",
            );
          else
            log.warn(
              { err, contactPoints, retryMs: reconnectDelayMs },
              'cannot reach Cassandra (check CASSANDRA_CONTACT_POINTS and CASSANDRA_LOCAL_DC); retrying in the background: /ready answers 503 until it does',
            );
        },
      },
    );
    this.scheduleCheck();
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
    await writePartitions(
      exec,
      this.st,
      spec,
      batch,
      this.clock.next(),
      this.options.writeEncoder,
      this.options.tagIndexedMetrics,
    );
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
      this.options.tagIndexedMetrics,
    );
  }

  async deleteMetricName(metric: string): Promise<void> {
    await deleteName((await this.connected()).exec, this.st, metric, this.clock.next());
  }

  /**
   * Answers with the driver's view of every node (with one down the store still answers, and says so) and with what
   * of the schema was lost and created again since the store started.
   */
  async ping(): Promise<PingReport> {
    const { exec } = await this.connected();
    await exec.ping(this.st.ping);
    const recreated = this.ledger.recreated;
    const report = hostsReport(exec.client);
    return recreated.length === 0 ? report : { ...report, recreated };
  }

  get schemaRepair(): SchemaRepairStatus {
    return this.ledger.status(this.repair !== undefined, this.repair?.retryDelayMs);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.repairTimer);
    clearTimeout(this.checkTimer);
    await this.repairRun;
    await this.link.close();
  }

  /**
   * The live connection (cassandra-client/reconnecting.ts). While the schema is being re-created it fails at once: DDL on a busy
   * cluster can take minutes. Clients are told to come back when the next attempt will have run.
   */
  private async connected(): Promise<Connection> {
    const repair = this.repair;
    if (repair !== undefined) {
      const waitMs = repair.nextAttemptMs === undefined ? 0 : repair.nextAttemptMs - Date.now();
      throw schemaLostError(repair.reason, {
        lastFailure: repair.lastFailure,
        retryAfterSeconds: retryAfterSeconds(waitMs),
        creating: this.options.createSchema,
      });
    }
    return this.link.get();
  }

  /** A fresh client per attempt: a client whose connect() failed cannot be connected again. */
  private async connectOnce(): Promise<Connection> {
    const client = new cassandra.Client(
      clientOptions(this.options, {
        // KairosDB writes in milliseconds: a delete of ours must shadow what KairosDB wrote, and the other way round.
        timestampGeneration:
          new MillisecondTimestampGenerator() as unknown as cassandra.policies.timestampGeneration.TimestampGenerator,
        ...(this.options.scanDecoder === 'lean' ? { encoding: leanPagesEncoding(this.options.keyspace) } : {}),
      }),
    );
    try {
      await client.connect();
      const exec: StoreExecutor = new Executor(
        client,
        this.limiter,
        this.stats,
        this.options,
        (reason) => this.schemaLost(exec, reason),
        kairosdbSchema(this.options.createSchema),
      );
      const { spec, coverage, catalog, losses } = await this.prepareKeyspace(exec);
      this.known = catalog;
      this.reportLosses(losses, {});
      return { exec, spec, coverage };
    } catch (error) {
      await client.shutdown().catch(() => {});
      throw error;
    }
  }

  /**
   * The start-up schema step, also run to recover: finds what is missing from the node's catalog or its live schema,
   * creates it unless that is turned off (never altering anything), then reads the spec, writing it first as for a new
   * keyspace when its rows are gone, and the tag index's coverage, marking the configured tags that have none yet.
   */
  private async prepareKeyspace(exec: StoreExecutor, view: StepView = {}): Promise<Prepared> {
    const { keyspace } = this.options;
    const before = await readCatalog((query, params) => exec.system(query, params), keyspace);
    view.catalog = describeCatalog(keyspace, before);
    const missing = await findMissing(exec, keyspace, before);
    view.node = describeAnswers(missing) ?? (before.keyspace ? 'every table it lists answers' : 'not asked');
    view.missing = describeMissing(keyspace, missing);
    let catalog = before;
    if (view.missing !== undefined) {
      if (!this.options.createSchema)
        throw new SchemaNotCreatedError(`${view.missing}; not created, CASSANDRA_CREATE_SCHEMA is false`);
      await createMissing(exec, this.options, missing, ddlHost(exec.client));
      catalog = await readCatalog((query, params) => exec.system(query, params), keyspace);
      const still = describeMissing(keyspace, await findMissing(exec, keyspace, catalog));
      if (still !== undefined) throw new Error(`created what was missing, yet ${still}`);
    }
    exec.schemaReady();
    const losses = findLosses(keyspace, this.known, before, missing);
    const spec = await readSpec(exec, this.st, this.options, this.clock.next());
    const coverage = await readCoverage(
      exec,
      this.st,
      this.options.tagIndexedMetrics,
      spec,
      Date.now(),
      this.clock.next(),
    );
    return { spec, coverage, catalog, losses };
  }

  /** Losses are logged at WARN and kept for /ready and /metrics: a re-created table is never "nothing missing". */
  private reportLosses(losses: readonly Loss[], view: StepView): void {
    const { keyspace, log } = this.options;
    this.ledger.record(losses, Date.now());
    for (const line of lossMessages(keyspace, losses)) {
      log.warn(
        {
          keyspace,
          objects: line.objects,
          ...(view.catalog !== undefined ? { catalog: view.catalog, node: view.node } : {}),
        },
        line.message,
      );
    }
  }

  /**
   * A request found the keyspace or a table gone (Cassandra lost its schema, or someone dropped it), or a look at the
   * catalog did. The first to notice starts one repair in the background; requests fail at once until it is done, so
   * no caller waits on DDL and concurrent failures do not each send their own.
   */
  private schemaLost(exec: StoreExecutor, reason: string): void {
    if (this.closed || this.repair !== undefined || this.link.value?.exec !== exec) return;
    this.repair = {
      reason,
      lastFailure: undefined,
      loggedCause: undefined,
      failuresInRow: 0,
      retryDelayMs: undefined,
      nextAttemptMs: undefined,
    };
    const doing = this.options.createSchema
      ? 're-creating what is missing'
      : 'waiting for it to be created (CASSANDRA_CREATE_SCHEMA is false)';
    this.options.log.warn({ keyspace: this.options.keyspace, reason }, `KairosDB's schema is gone; ${doing}`);
    this.attemptRepair(exec);
  }

  /**
   * One repair attempt. After a failure the next one runs later, a reconnect delay doubled with each failure in a row
   * up to a bound; a failure is logged when its cause (what the catalog lists, what the node answers, the error) is
   * not the one logged last.
   */
  private attemptRepair(exec: StoreExecutor): void {
    const repair = this.repair!;
    const { keyspace, log } = this.options;
    repair.retryDelayMs = undefined;
    repair.nextAttemptMs = undefined;
    this.ledger.attempts++;
    const view: StepView = {};
    this.repairRun = this.prepareKeyspace(exec, view).then(
      ({ spec, coverage, catalog, losses }) => {
        this.repairRun = undefined;
        if (this.closed) return;
        this.known = catalog;
        this.link.replace({ exec, spec, coverage });
        this.repair = undefined;
        this.reportLosses(losses, view);
        log.info(
          { keyspace, attempts: repair.failuresInRow + 1, recreated: losses.map((loss) => loss.object), spec },
          "KairosDB's schema repaired",
        );
      },
      (error: unknown) => {
        this.repairRun = undefined;
        this.ledger.failures++;
        repair.failuresInRow++;
        const message = failureMessage(error);
        // What is missing is the reason itself; saying it again as the failure would only repeat it.
        repair.lastFailure = error instanceof SchemaNotCreatedError ? undefined : message;
        if (view.missing !== undefined) repair.reason = view.missing;
        const delayMs = repairDelayMs(this.options.reconnectDelayMs, repair.failuresInRow);
        const cause = JSON.stringify([view.catalog, view.node, message]);
        if (cause !== repair.loggedCause) {
          repair.loggedCause = cause;
          const fields = {
            keyspace,
            catalog: view.catalog ?? 'not read',
            node: view.node ?? 'not asked',
            err: message,
            failures: repair.failuresInRow,
            retryMs: delayMs,
          };
          log.warn(
            fields,
            this.options.createSchema
              ? "cannot re-create KairosDB's schema; retrying in the background"
              : "KairosDB's schema is still incomplete; checking again in the background",
          );
        }
        if (this.closed) return;
        repair.retryDelayMs = delayMs;
        repair.nextAttemptMs = Date.now() + delayMs;
        this.repairTimer = setTimeout(() => this.attemptRepair(exec), delayMs);
        this.repairTimer.unref();
      },
    );
  }

  /**
   * Every schemaCheckMs, while connected and not repairing, one read of the node's catalog of the keyspace: a keyspace
   * or table dropped, or dropped and made again by another client (its id changed), starts a repair before a request
   * meets it, and is reported. Its failures are left to requests to meet.
   */
  private scheduleCheck(): void {
    if (this.options.schemaCheckMs === 0 || this.closed) return;
    this.checkTimer = setTimeout(() => {
      const connection = this.link.value;
      const known = this.known;
      if (connection === undefined || known === undefined || this.repair !== undefined) return this.scheduleCheck();
      const { exec } = connection;
      readCatalog((query, params) => exec.background(query, params), this.options.keyspace).then(
        (now) => {
          const change = this.known === known ? catalogChange(this.options.keyspace, known, now) : undefined;
          if (change !== undefined) this.schemaLost(exec, change);
          this.scheduleCheck();
        },
        () => this.scheduleCheck(),
      );
    }, this.options.schemaCheckMs);
    this.checkTimer.unref();
  }
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
