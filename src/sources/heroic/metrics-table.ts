/**
 * Heroic's `metrics` table on Cassandra (docs/heroic-layout.md): `(metric_key blob, data_timestamp_offset
 * int, data_value double)`, a partition per series and base. This module speaks only in its bytes and columns: which
 * key a series has and what its columns mean is the layout's (row-key.ts, heroic-source.ts). Statements are Heroic's
 * own, prepared, with every value bound.
 */
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../../model/errors.js';
import { clientOptions } from '../../store/cassandra-client/client-options.js';
import {
  Executor,
  type ExecutorStats,
  type StatementCounts,
  type WatchedSchema,
} from '../../store/cassandra-client/executor.js';
import { pagesAhead } from '../../store/cassandra-client/pages.js';
import { Limiter } from '../../store/cassandra-client/limiter.js';
import type { ResolvedConnection } from '../../store/cassandra-client/connection-options.js';
import { Reconnecting } from '../../store/cassandra-client/reconnecting.js';
import { pageOfKeys } from '../catalogue/scan-catalogue.js';

export type MetricsStatement =
  | 'metrics.select'
  | 'metrics.insert'
  | 'metrics.delete_partition'
  | 'metrics.delete_range'
  | 'metrics.keys';

export interface MetricsTableOptions {
  /** The connection's settings (contact points, keyspace, consistency, limits), checked as the KairosDB store's are. */
  readonly cassandra: ResolvedConnection;
  /** Create the keyspace and table when they are missing, as Heroic's `configure: true` does. */
  readonly configure: boolean;
}

/** A partition key as the table holds it, with the token Cassandra placed it by. */
export interface TableKey {
  readonly key: Buffer;
  readonly token: bigint;
}

/** Consecutive rows of one partition, in the read's order: columns and values side by side. */
export interface RowsPage {
  /** Cassandra's int columns, or Bigtable's unsigned offsets. */
  readonly columns: Int32Array | Uint32Array;
  readonly values: Float64Array;
}

export interface ReadRequest {
  readonly order: 'asc' | 'desc';
  /** At most this many rows (0: all). */
  readonly limit: number;
  readonly fetchSize: number;
  readonly signal?: AbortSignal | undefined;
}

const DDL_TIMEOUT_MS = 60_000;

export class MetricsTable {
  readonly keyspace: string;
  private readonly stats: ExecutorStats<MetricsStatement> = { counts: {}, inFlight: 0 };
  private readonly link: Reconnecting<Executor<MetricsStatement>>;
  private readonly q: ReturnType<typeof statements>;

  constructor(private readonly options: MetricsTableOptions) {
    const settings = options.cassandra;
    this.keyspace = settings.keyspace;
    this.q = statements(settings.keyspace);
    const limiter = new Limiter(settings.concurrency);
    const { log, keyspace, contactPoints, reconnectDelayMs } = settings;
    this.link = new Reconnecting(
      () => this.connectOnce(limiter),
      (exec) => exec.client.shutdown(),
      reconnectDelayMs,
      {
        connected: () => log.info({ keyspace, table: 'metrics' }, "connected to Heroic's table"),
        failed: (error, repeated) => {
          if (!repeated)
            log.warn(
              {
                err: error instanceof Error ? error.message : String(error),
                contactPoints,
                keyspace,
                retryMs: reconnectDelayMs,
              },
              "cannot read Heroic's table; retrying in the background",
            );
        },
      },
    );
  }

  /** Requests sent since the table was opened, by statement. */
  get statements(): Readonly<StatementCounts<MetricsStatement>> {
    return { ...this.stats.counts };
  }

  /**
   * Up to `limit` distinct partition keys with tokens after `after`, in token order (Heroic's `keys` task), and
   * whether the ring's end was reached (pageOfKeys).
   */
  async keys(after: bigint, limit: number): Promise<{ keys: TableKey[]; done: boolean }> {
    const exec = await this.link.get();
    const result = await exec.page(
      'metrics.keys',
      this.q.keys,
      [cassandra.types.Long.fromString(after.toString()), limit],
      { fetchSize: limit },
    );
    return pageOfKeys(
      result.rows.map((row) => ({
        key: row['metric_key'] as Buffer,
        token: BigInt((row['key_token'] as cassandra.types.Long).toString()),
      })),
      limit,
    );
  }

  /** Rows of one partition with from <= column <= to, paged, the next page on its way while one is consumed. */
  async *read(key: Buffer, from: number, to: number, request: ReadRequest): AsyncGenerator<RowsPage> {
    request.signal?.throwIfAborted();
    if (from > to) return;
    const exec = await this.link.get();
    const desc = request.order === 'desc';
    const query =
      request.limit > 0
        ? desc
          ? this.q.selectDescLimit
          : this.q.selectAscLimit
        : desc
          ? this.q.selectDesc
          : this.q.selectAsc;
    const params: unknown[] = [key, from, to];
    if (request.limit > 0) params.push(request.limit);
    for await (const result of pagesAhead((pageState) =>
      exec.page('metrics.select', query, params, { fetchSize: request.fetchSize, pageState, signal: request.signal }),
    )) {
      const rows = result.rows;
      if (rows.length === 0) continue;
      const columns = new Int32Array(rows.length);
      const values = new Float64Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        columns[i] = row['data_timestamp_offset'] as number;
        values[i] = row['data_value'] as number;
      }
      yield { columns, values };
    }
  }

  /**
   * Writes rows into one partition, with a TTL when `ttlSeconds` > 0 (Heroic writes none), in unlogged batches of one
   * partition each; resolves once Cassandra acknowledged all of them, rejects after all settled when one failed.
   */
  async insert(key: Buffer, columns: readonly number[], values: readonly number[], ttlSeconds: number): Promise<void> {
    const exec = await this.link.get();
    const query = ttlSeconds > 0 ? this.q.insertTtl : this.q.insert;
    const queries = columns.map((column, i) => ({
      query,
      params: ttlSeconds > 0 ? [key, column, values[i], ttlSeconds] : [key, column, values[i]],
    }));
    await exec.partitionBatches('metrics.insert', queries, microsecondsNow());
  }

  /** Deletes the rows with from <= column <= to, or the whole partition when `from`/`to` are undefined. */
  async delete(key: Buffer, range?: { readonly from: number; readonly to: number }): Promise<void> {
    const exec = await this.link.get();
    if (range === undefined)
      await exec.mutate('metrics.delete_partition', this.q.deletePartition, [key], microsecondsNow());
    else await exec.mutate('metrics.delete_range', this.q.deleteRange, [key, range.from, range.to], microsecondsNow());
  }

  async ping(): Promise<void> {
    await (await this.link.get()).ping('SELECT release_version FROM system.local');
  }

  close(): Promise<void> {
    return this.link.close();
  }

  private async connectOnce(limiter: Limiter): Promise<Executor<MetricsStatement>> {
    const settings = this.options.cassandra;
    // The driver's own write times (microseconds), as Heroic's: a delete of ours must shadow Heroic's writes.
    const client = new cassandra.Client(clientOptions(settings));
    try {
      await client.connect();
      const exec = new Executor<MetricsStatement>(client, limiter, this.stats, settings, () => {}, this.watched());
      await this.prepareTable(exec);
      exec.schemaReady();
      return exec;
    } catch (error) {
      await client.shutdown().catch(() => {});
      throw error;
    }
  }

  /** Finds the table; creates it (and the keyspace) with Heroic's CQL when told to configure, fails naming it otherwise. */
  private async prepareTable(exec: Executor<MetricsStatement>): Promise<void> {
    const { keyspace, replication } = this.options.cassandra;
    const found = await exec.system(
      'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
      [keyspace, 'metrics'],
    );
    if (found.rows.length > 0) return;
    if (!this.options.configure) throw new Error(missingTable(keyspace));
    await exec.ddl(`CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH REPLICATION = ${replication}`, DDL_TIMEOUT_MS);
    // Heroic's tables.cql, less COMPACT STORAGE (deprecated since Cassandra 4); the CQL columns are the same.
    await exec.ddl(
      `CREATE TABLE IF NOT EXISTS ${keyspace}.metrics (metric_key blob, data_timestamp_offset int, data_value double, PRIMARY KEY (metric_key, data_timestamp_offset))`,
      DDL_TIMEOUT_MS,
    );
  }

  /** A table dropped while connected fails its requests with what is gone; the next connection attempt says it again. */
  private watched(): WatchedSchema {
    const { keyspace } = this.options.cassandra;
    return {
      tables: ['metrics'],
      lostError: (reason, _lastFailure, cause) =>
        new StoreUnavailableError('cassandra', new Error(`${reason}: ${missingTable(keyspace)}`, { cause })),
    };
  }
}

function missingTable(keyspace: string): string {
  return `Heroic's table ${keyspace}.metrics does not exist (a heroic source creates it only with "configure": true)`;
}

/** The driver's write-time unit, which Heroic's writes carry. */
function microsecondsNow(): number {
  return Date.now() * 1000;
}

function statements(keyspace: string) {
  const t = `${keyspace}.metrics`;
  const select = `SELECT data_timestamp_offset, data_value FROM ${t} WHERE metric_key = ? AND data_timestamp_offset >= ? AND data_timestamp_offset <= ?`;
  return {
    selectAsc: `${select} ORDER BY data_timestamp_offset ASC`,
    selectDesc: `${select} ORDER BY data_timestamp_offset DESC`,
    selectAscLimit: `${select} ORDER BY data_timestamp_offset ASC LIMIT ?`,
    selectDescLimit: `${select} ORDER BY data_timestamp_offset DESC LIMIT ?`,
    insert: `INSERT INTO ${t} (metric_key, data_timestamp_offset, data_value) VALUES (?, ?, ?)`,
    insertTtl: `INSERT INTO ${t} (metric_key, data_timestamp_offset, data_value) VALUES (?, ?, ?) USING TTL ?`,
    deletePartition: `DELETE FROM ${t} WHERE metric_key = ?`,
    deleteRange: `DELETE FROM ${t} WHERE metric_key = ? AND data_timestamp_offset >= ? AND data_timestamp_offset <= ?`,
    keys: `SELECT DISTINCT metric_key, token(metric_key) AS key_token FROM ${t} WHERE token(metric_key) > ? LIMIT ?`,
  };
}
