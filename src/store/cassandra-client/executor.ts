// Sends every statement of one connected client: prepared, under the request limiter, with the configured
// consistency and timeout, counted by name, with driver failures turned into StoreUnavailableError; failures that
// mean a watched keyspace or table is gone are reported to its owner (the KairosDB store re-creates them).
import cassandra from 'cassandra-driver';
import type { StoreUnavailableError } from '../../model/errors.js';
import { settleAll } from '../../lib/settle-all.js';
import { untilAborted } from '../../lib/until-aborted.js';
import type { Consistency, ResolvedConnection } from './connection-options.js';
import type { Limiter } from './limiter.js';
import { pageStateOf } from './pages.js';
import { retryAfterSeconds, schemaLoss, storeError } from './store-errors.js';

/** Requests sent, by statement; readiness pings count as `system.ping` whatever the schema. */
export type StatementCounts<Name extends string = string> = Partial<Record<Name | 'system.ping', number>>;

/** Counters shared by every client a store creates over its life (it makes a new one per connection attempt). */
export interface ExecutorStats<Name extends string = string> {
  readonly counts: StatementCounts<Name>;
  /** Driver requests sent and not yet settled. */
  inFlight: number;
}

export interface PageRequest {
  readonly fetchSize: number;
  readonly pageState?: Buffer | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A batch of one partition is one mutation and must stay under Cassandra's max_mutation_size (half a commit log segment). */
export const MAX_STATEMENTS_PER_BATCH = 1000;

/** Told when a request failed because the watched keyspace or one of its tables is gone; `reason` names what. */
export type SchemaLossListener = (reason: string) => void;

/**
 * The schema an executor watches: the tables whose loss a failure can reveal (statements are named `<table>.<what>`),
 * and the error every such failure becomes (what is gone, what happens about it).
 */
export interface WatchedSchema {
  readonly tables: readonly string[];
  lostError(reason: string, lastFailure?: string, cause?: unknown): StoreUnavailableError;
}

export interface BatchQuery {
  readonly query: string;
  readonly params: unknown[];
}

export class Executor<Name extends string = string> {
  private readonly read: number;
  private readonly write: number;
  /** Bumped when the schema step completes: failures of requests sent before say nothing about the schema since. */
  private schemaGeneration = 0;

  constructor(
    readonly client: cassandra.Client,
    private readonly limiter: Limiter,
    private readonly stats: ExecutorStats<Name>,
    private readonly options: ResolvedConnection,
    private readonly onSchemaLost: SchemaLossListener,
    private readonly schema: WatchedSchema,
  ) {
    this.read = consistencyOf(options.readConsistency);
    this.write = consistencyOf(options.writeConsistency);
  }

  /** One page of a read; a new page is fetched only when the caller asks, which is how scans apply backpressure. */
  async page(name: Name, query: string, params: unknown[], request: PageRequest): Promise<cassandra.types.ResultSet> {
    const options: cassandra.QueryOptions = {
      prepare: true,
      consistency: this.read,
      fetchSize: request.fetchSize,
      autoPage: false,
      isIdempotent: true,
      readTimeout: this.options.requestTimeoutMs,
      ...(request.pageState !== undefined ? { pageState: request.pageState } : {}),
    };
    return this.send(name, () => this.client.execute(query, params, options), request.signal);
  }

  /** Every row of a read (index tables: small partitions), page by page under the limiter. */
  async all(name: Name, query: string, params: unknown[]): Promise<cassandra.types.Row[]> {
    const rows: cassandra.types.Row[] = [];
    let pageState: Buffer | undefined;
    do {
      const result = await this.page(name, query, params, { fetchSize: this.options.fetchSize, pageState });
      for (const row of result.rows) rows.push(row);
      pageState = pageStateOf(result);
    } while (pageState !== undefined);
    return rows;
  }

  /** A read that must see this store's own recent writes, so it runs at the write consistency. */
  async mutationRead(name: Name, query: string, params: unknown[]): Promise<cassandra.types.ResultSet> {
    const options = {
      prepare: true,
      consistency: this.write,
      isIdempotent: true,
      readTimeout: this.options.requestTimeoutMs,
    };
    return this.send(name, () => this.client.execute(query, params, options));
  }

  /** A write or delete with its millisecond write time (used where the CQL has no USING TIMESTAMP of its own). */
  async mutate(name: Name, query: string, params: unknown[], timestampMs: number): Promise<void> {
    const options = {
      prepare: true,
      consistency: this.write,
      isIdempotent: true,
      readTimeout: this.options.requestTimeoutMs,
      timestamp: timestampMs,
    };
    await this.send(name, () => this.client.execute(query, params, options));
  }

  /**
   * A lightweight transaction (`... IF ...`): its Paxos round reads at SERIAL and commits at the write consistency.
   * Resolves with the result's row: `[applied]`, and the row it found when it did not apply. Not idempotent: a
   * timeout is not retried, since the first attempt may have applied.
   */
  async conditional(name: Name, query: string, params: unknown[]): Promise<cassandra.types.Row> {
    const options = {
      prepare: true,
      consistency: this.write,
      serialConsistency: cassandra.types.consistencies.serial,
      isIdempotent: false,
      readTimeout: this.options.requestTimeoutMs,
    };
    const result = await this.send(name, () => this.client.execute(query, params, options));
    return result.first();
  }

  /**
   * An UNLOGGED batch: KairosDB groups its inserts this way; one partition per batch is one mutation, applied whole.
   * Its write time (in the schema's unit: KairosDB's milliseconds) is the batch's default timestamp, which every
   * statement without its own takes.
   */
  async batch(name: Name, queries: BatchQuery[], timestampMs: number): Promise<void> {
    await this.send(name, () => this.client.batch(queries, this.batchOptions(timestampMs)));
  }

  /**
   * Statements of one partition in UNLOGGED batches of at most MAX_STATEMENTS_PER_BATCH, sent together: resolves once
   * Cassandra acknowledged all of them, rejects after all settled when one failed.
   */
  async partitionBatches(name: Name, queries: readonly BatchQuery[], writeTime: number): Promise<void> {
    const batches: Promise<void>[] = [];
    for (let start = 0; start < queries.length; start += MAX_STATEMENTS_PER_BATCH)
      batches.push(this.batch(name, queries.slice(start, start + MAX_STATEMENTS_PER_BATCH), writeTime));
    await settleAll(batches);
  }

  /**
   * A data_points batch of one partition's cells, written by the lean batch encoder (lean-batch-hook.ts): the driver
   * prepares, routes (by the cells' key), sends and retries it as any batch; only its statements' bytes are written in one piece.
   */
  async cells(name: Name, query: string, cells: { readonly params: unknown[] }, timestampMs: number): Promise<void> {
    await this.send(name, () => this.client.batch([{ query, params: cells.params }], this.batchOptions(timestampMs)));
  }

  /**
   * The nodes that hold the partition of `routingKey`, as one string: a batch of partitions with the same replicas is
   * coordinated by a node that holds every one of them. The same for all ('') while the client knows one node.
   */
  replicasOf(routingKey: Buffer): string {
    if (this.client.hosts.length <= 1) return '';
    const replicas = this.client.getReplicas(this.options.keyspace, routingKey) ?? [];
    return replicas
      .map((host) => host.address)
      .sort()
      .join(',');
  }

  /** Schema lookups while connecting: not counted, not limited (nothing else runs yet). */
  async system(query: string, params: unknown[]): Promise<cassandra.types.ResultSet> {
    return this.send(
      undefined,
      () => this.client.execute(query, params, { prepare: true, readTimeout: this.options.requestTimeoutMs }),
      undefined,
      false,
    );
  }

  /**
   * A look at the node's catalog while the store serves: not counted anywhere, not even in flight, since it runs on a
   * timer and readers of those figures mean the requests the store was asked for.
   */
  async background(query: string, params: unknown[]): Promise<cassandra.types.ResultSet> {
    try {
      return await this.client.execute(query, params, { prepare: true, readTimeout: this.options.requestTimeoutMs });
    } catch (error) {
      throw storeError(error, this.retryAfterSeconds);
    }
  }

  /**
   * Whether the node's live schema has what `query` reads, whatever its catalog lists: undefined when it prepares and
   * runs, else what the node answered is missing. Not counted, and not a loss to report: the schema step that asks
   * decides what to do about it.
   */
  async probe(query: string, params: unknown[]): Promise<string | undefined> {
    try {
      await this.client.execute(query, params, {
        prepare: true,
        readTimeout: this.options.requestTimeoutMs,
        isIdempotent: true,
      });
      return undefined;
    } catch (error) {
      const lost = schemaLoss(error, this.options.keyspace, undefined, this.schema.tables);
      if (lost !== undefined) return lost;
      throw storeError(error, this.retryAfterSeconds);
    }
  }

  /** `host`: the one coordinator to send it to (bypassing the load balancing), so that every gateway sends its DDL to the same node. */
  async ddl(query: string, timeoutMs: number, host?: cassandra.Host): Promise<void> {
    await this.send(
      undefined,
      () => this.client.execute(query, [], { readTimeout: timeoutMs, ...(host !== undefined ? { host } : {}) }),
      undefined,
      false,
    );
  }

  /**
   * Forgets the ids of every prepared statement, so each is prepared again on first use: the schema step's probes then
   * ask the node about its schema now, not about the tables the statements were first prepared on.
   */
  forgetPrepared(): void {
    this.client.metadata.clearPrepared();
  }

  /** Outside the limiter: readiness must answer even while queries hold every permit. */
  async ping(query: string): Promise<void> {
    await this.send(
      'system.ping',
      () => this.client.execute(query, [], { readTimeout: this.options.requestTimeoutMs, isIdempotent: true }),
      undefined,
      false,
    );
  }

  /**
   * The keyspace and every table are in place (again). The driver keeps the ids of statements prepared on tables
   * that may since have been dropped and re-created, and would send each once in vain before preparing it again, so
   * they are forgotten and prepared afresh on first use.
   */
  schemaReady(): void {
    this.schemaGeneration++;
    this.forgetPrepared();
  }

  /** What a client is told to wait before it asks again: the reconnect delay, in whole seconds. */
  private get retryAfterSeconds(): number {
    return retryAfterSeconds(this.options.reconnectDelayMs);
  }

  private batchOptions(timestampMs: number): cassandra.QueryOptions {
    return {
      prepare: true,
      logged: false,
      consistency: this.write,
      isIdempotent: true,
      readTimeout: this.options.requestTimeoutMs,
      timestamp: timestampMs,
    };
  }

  private async send<T>(
    name: Name | 'system.ping' | undefined,
    request: () => Promise<T>,
    signal?: AbortSignal,
    limited = true,
  ): Promise<T> {
    const generation = this.schemaGeneration;
    if (limited) await this.limiter.acquire(signal);
    if (name !== undefined) this.stats.counts[name] = (this.stats.counts[name] ?? 0) + 1;
    this.stats.inFlight++;
    const sent = request().finally(() => {
      this.stats.inFlight--;
      if (limited) this.limiter.release();
    });
    try {
      // The driver cannot cancel a sent request: it runs to its end in the background (it still counts as in flight
      // and keeps its permit until then) and its outcome is dropped.
      return await untilAborted(sent, signal);
    } catch (error) {
      const lost = schemaLoss(error, this.options.keyspace, name, this.schema.tables);
      if (lost === undefined) throw storeError(error, this.retryAfterSeconds);
      if (generation === this.schemaGeneration) this.onSchemaLost(lost);
      throw this.schema.lostError(lost, undefined, error);
    }
  }
}

function consistencyOf(level: Consistency): number {
  const c = cassandra.types.consistencies;
  const map: Record<Consistency, number> = {
    ANY: c.any,
    ONE: c.one,
    TWO: c.two,
    THREE: c.three,
    QUORUM: c.quorum,
    ALL: c.all,
    LOCAL_QUORUM: c.localQuorum,
    EACH_QUORUM: c.eachQuorum,
    LOCAL_ONE: c.localOne,
  };
  return map[level];
}
