/**
 * KairosDB's keyspace kept connected and whole for the Cassandra store: a connection made in the background and again
 * after a failure, the schema step on each (what is missing created, the spec and the tag index's coverage read), a
 * repair when a request or the periodic look at the node's catalog finds the keyspace or a table gone, and the record
 * of what was lost, for /ready and /metrics.
 */
import cassandra from 'cassandra-driver';
import type { Recreation, SchemaRepairStatus } from '../../model/health.js';
import type { RowSpec } from '../store.js';
import type { TagIndexCoverage } from '../tag-index.js';
import { Executor, type ExecutorStats } from '../cassandra-client/executor.js';
import { kairosdbSchema, schemaLostError } from './schema-loss.js';
import { retryAfterSeconds } from '../cassandra-client/store-errors.js';
import { leanPagesEncoding } from './lean-pages.js';
import type { Limiter } from '../cassandra-client/limiter.js';
import { Reconnecting } from '../cassandra-client/reconnecting.js';
import { clientOptions } from '../cassandra-client/client-options.js';
import type { ResolvedOptions } from './options.js';
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
import type { StatementName, Statements, StoreExecutor } from './statements.js';
import { readCoverage } from './tag-index-coverage.js';
import { MillisecondTimestampGenerator, type MutationClock } from './timestamps.js';
import type { WrittenIndex } from './written-index.js';

/** A live connection, with the keyspace's schema in place and what was read with it. */
export interface Connection {
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

export class KeyspaceLink {
  private readonly link: Reconnecting<Connection>;
  private repair: Repair | undefined;
  private repairRun: Promise<void> | undefined;
  private repairTimer: NodeJS.Timeout | undefined;
  /** The catalog as the last complete schema step left it: what later looks compare with. */
  private known: Catalog | undefined;
  private readonly ledger = new SchemaLedger();
  private checkTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /** Starts connecting in the background, and looking at the node's catalog every schemaCheckMs. */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly st: Statements,
    private readonly limiter: Limiter,
    private readonly stats: ExecutorStats<StatementName>,
    private readonly clock: MutationClock,
    /** Forgotten whenever the schema may have changed under it: a re-created table holds none of those rows. */
    private readonly written: WrittenIndex,
  ) {
    const { log, keyspace, contactPoints, reconnectDelayMs } = options;
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

  /** What was lost and created again since the store was made (the store's ping reports it). */
  get recreated(): readonly Recreation[] {
    return this.ledger.recreated;
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
  async connected(): Promise<Connection> {
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
    if (view.missing !== undefined) {
      if (!this.options.createSchema)
        throw new SchemaNotCreatedError(`${view.missing}; not created, CASSANDRA_CREATE_SCHEMA is false`);
      await createMissing(exec, this.options, missing, ddlHost(exec.client));
      const created = await readCatalog((query, params) => exec.system(query, params), keyspace);
      const still = describeMissing(keyspace, await findMissing(exec, keyspace, created));
      if (still !== undefined) throw new Error(`created what was missing, yet ${still}`);
    }
    exec.schemaReady();
    this.written.clear();
    // Read again once every table answered: another client (an operator running KairosDB's DDL) may have made a table
    // again between the first read and the probes, and the ids compared for losses must be those the probes reached.
    const catalog = await readCatalog((query, params) => exec.system(query, params), keyspace);
    const losses = findLosses(keyspace, this.known, catalog, missing);
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
    this.written.clear();
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
