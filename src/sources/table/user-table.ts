/**
 * A user's own table on Cassandra, as its mapping reads it: one prepared statement per (series, bucket) read, never
 * `ALLOW FILTERING` nor an `IN` over partitions; the distinct partition keys for the catalogue; inserts into the mapped
 * columns and deletes inside one bucket. Every name in the CQL was checked against system_schema when it connected
 * (mapping.ts) and is quoted; every value is bound.
 */
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../../errors.js';
import { clientOptions } from '../../store/cassandra/client-options.js';
import { Executor, pagesAhead, type ExecutorStats, type WatchedSchema } from '../../store/cassandra/executor.js';
import { installLeanPageHook, LEAN_PAGES_KEY } from '../../store/cassandra/lean-page-hook.js';
import { Limiter } from '../../store/cassandra/limiter.js';
import type { ResolvedOptions } from '../../store/cassandra/options.js';
import { Reconnecting } from '../../store/cassandra/reconnecting.js';
import { pageOfKeys, type KeyPages } from '../catalogue/scan-catalogue.js';
import { checkMapping, type CheckedTable, type SchemaColumn, type TableMapping } from './mapping.js';
import { TimeValuePages, TimeValueRows } from './time-value-rows.js';

type TableStatement = 'table.select' | 'table.keys' | 'table.insert' | 'table.delete';

/** A partition's key values in partition key order, bound as the columns' types. */
export type PartitionValues = readonly unknown[];

/** A partition key as the catalogue's scan reads it: each column's value by its name. */
export type KeyColumns = Readonly<Record<string, unknown>>;

interface Connection {
  readonly exec: Executor<TableStatement>;
  readonly checked: CheckedTable;
}

/** The mapping does not fit the table: start-up stops on it; later, requests say it. */
export class MappingError extends Error {}

/**
 * Rows of one partition in the read's order: decoded lean (times and numbers of the rows with a value), or through the
 * driver's rows (times and the value column's cells, null where a row has none).
 */
export type TableRows = TimeValueRows | { readonly times: Float64Array; readonly cells: readonly unknown[] };


export class UserTable implements KeyPages<KeyColumns> {
  private readonly stats: ExecutorStats<TableStatement> = { counts: {}, inFlight: 0 };
  private readonly link: Reconnecting<Connection>;
  private readonly q: (name: string) => string;

  /** `lean`: numeric reads decoded from the frame's bytes (time-value-rows.ts), as CASSANDRA_SCAN_DECODER=lean does. */
  constructor(
    private readonly mapping: TableMapping,
    private readonly cassandraOptions: ResolvedOptions,
    private readonly source: string,
    private readonly lean: boolean,
  ) {
    if (lean) installLeanPageHook();
    const target = `${quote(mapping.keyspace)}.${quote(mapping.table)}`;
    this.q = (rest) => rest.replaceAll('$T', target);
    const limiter = new Limiter(cassandraOptions.concurrency);
    const { log, contactPoints, reconnectDelayMs } = cassandraOptions;
    this.link = new Reconnecting(
      () => this.connectOnce(limiter),
      (c) => c.exec.client.shutdown(),
      reconnectDelayMs,
      {
        connected: () => log.info({ table: `${mapping.keyspace}.${mapping.table}` }, 'connected to the table'),
        failed: (error, repeated) => {
          if (!repeated) log.warn({ err: error instanceof Error ? error.message : String(error), contactPoints, retryMs: reconnectDelayMs }, 'cannot read the table; retrying in the background');
        },
      },
    );
  }

  /** The checked table of the live connection, if there is one now (the catalogue's scan reads only while connected). */
  get current(): CheckedTable | undefined {
    return this.link.value?.checked;
  }

  /** The checked table, once connected; rejects with a MappingError when the mapping does not fit the table. */
  async checked(): Promise<CheckedTable> {
    return (await this.connection()).checked;
  }

  async keys(after: bigint, limit: number): Promise<{ keys: { token: bigint; key: KeyColumns }[]; done: boolean }> {
    const { exec, checked } = await this.connection();
    const names = checked.partitionKey.map((c) => quote(c.name)).join(', ');
    const query = this.q(`SELECT DISTINCT ${names}, token(${names}) AS key_token FROM $T WHERE token(${names}) > ? LIMIT ?`);
    const result = await exec.page('table.keys', query, [cassandra.types.Long.fromString(after.toString()), limit], { fetchSize: limit });
    return pageOfKeys(
      result.rows.map((row) => ({ key: Object.fromEntries(checked.partitionKey.map((c) => [c.name, row[c.name]])) as KeyColumns, token: BigInt((row['key_token'] as cassandra.types.Long).toString()) })),
      limit,
    );
  }

  /** Rows of one partition with from <= time <= to whose `column` is set, paged, the next page on its way. */
  async *read(key: PartitionValues, column: string, fromMs: number, toMs: number, request: { order: 'asc' | 'desc'; limit: number; fetchSize: number; signal?: AbortSignal | undefined }): AsyncGenerator<TableRows> {
    request.signal?.throwIfAborted();
    const { exec, checked } = await this.connection();
    const time = quote(checked.mapping.time);
    const where = checked.partitionKey.map((c) => `${quote(c.name)} = ?`).join(' AND ');
    const query = this.q(`SELECT ${time}, ${quote(column)} FROM $T WHERE ${where} AND ${time} >= ? AND ${time} <= ? ORDER BY ${time} ${request.order.toUpperCase()}${request.limit > 0 ? ' LIMIT ?' : ''}`);
    const params: unknown[] = [...key, new Date(fromMs), new Date(toMs)];
    if (request.limit > 0) params.push(request.limit);
    for await (const result of pagesAhead((pageState) => exec.page('table.select', query, params, { fetchSize: request.fetchSize, pageState, signal: request.signal }))) {
      const rows = result.rows as unknown as TimeValueRows | cassandra.types.Row[];
      if (rows.length === 0) continue;
      if (rows instanceof TimeValueRows) {
        yield rows;
        continue;
      }
      const times = new Float64Array(rows.length);
      const cells: unknown[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        times[i] = (row[checked.mapping.time] as Date).getTime();
        cells[i] = row[column];
      }
      yield { times, cells };
    }
  }

  /** Writes one cell per point of one partition, with a TTL when `ttlSeconds` > 0 (else the table's default applies). */
  async insert(key: PartitionValues, column: string, times: readonly number[], values: readonly unknown[], ttlSeconds: number): Promise<void> {
    const { exec, checked } = await this.connection();
    const names = [...checked.partitionKey.map((c) => quote(c.name)), quote(checked.mapping.time), quote(column)];
    const query = this.q(`INSERT INTO $T (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})${ttlSeconds > 0 ? ' USING TTL ?' : ''}`);
    const queries = times.map((t, i) => ({ query, params: ttlSeconds > 0 ? [...key, new Date(t), values[i], ttlSeconds] : [...key, new Date(t), values[i]] }));
    // The driver's unit (microseconds): what a user's own writer most likely used.
    await exec.partitionBatches('table.insert', queries, Date.now() * 1000);
  }

  /**
   * Deletes within one partition: the rows with from <= time <= to when `column` is undefined (a table of one metric),
   * else only `column`'s cells of those rows (other metrics' values stay), one statement per row.
   */
  async delete(key: PartitionValues, fromMs: number, toMs: number, column?: string): Promise<void> {
    const { exec, checked } = await this.connection();
    const time = quote(checked.mapping.time);
    const where = checked.partitionKey.map((c) => `${quote(c.name)} = ?`).join(' AND ');
    if (column === undefined) {
      await exec.mutate('table.delete', this.q(`DELETE FROM $T WHERE ${where} AND ${time} >= ? AND ${time} <= ?`), [...key, new Date(fromMs), new Date(toMs)], Date.now() * 1000);
      return;
    }
    const deleteCell = this.q(`DELETE ${quote(column)} FROM $T WHERE ${where} AND ${time} = ?`);
    for await (const { times } of this.read(key, column, fromMs, toMs, { order: 'asc', limit: 0, fetchSize: 1000 })) {
      await Promise.all(Array.from(times, (t) => exec.mutate('table.delete', deleteCell, [...key, new Date(t)], Date.now() * 1000)));
    }
  }

  async ping(): Promise<void> {
    await (await this.connection()).exec.ping('SELECT release_version FROM system.local');
  }

  close(): Promise<void> {
    return this.link.close();
  }

  private async connection(): Promise<Connection> {
    try {
      return await this.link.get();
    } catch (error) {
      // A mapping that does not fit says so, not "Cassandra is unavailable".
      if (error instanceof StoreUnavailableError && error.cause instanceof MappingError) throw error.cause;
      throw error;
    }
  }

  private async connectOnce(limiter: Limiter): Promise<Connection> {
    const { keyspace: ks, table: tbl, time } = this.mapping;
    const client = new cassandra.Client(clientOptions(this.cassandraOptions, this.lean ? { encoding: { [LEAN_PAGES_KEY]: new TimeValuePages(ks, tbl, time) } as cassandra.ClientOptions['encoding'] } : {}));
    try {
      await client.connect();
      const exec = new Executor<TableStatement>(client, limiter, this.stats, this.cassandraOptions, () => {}, this.watched());
      const { keyspace, table } = this.mapping;
      const columns = await exec.system('SELECT column_name, kind, position, type, clustering_order FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?', [keyspace, table]);
      const tables = await exec.system('SELECT default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?', [keyspace, table]);
      const schema: SchemaColumn[] = columns.rows.map((row) => ({
        name: row['column_name'] as string,
        kind: row['kind'] as SchemaColumn['kind'],
        position: row['position'] as number,
        type: row['type'] as string,
        order: row['clustering_order'] as SchemaColumn['order'],
      }));
      let checked: CheckedTable;
      try {
        checked = checkMapping(this.mapping, schema, (tables.rows[0]?.['default_time_to_live'] as number | undefined) ?? 0);
      } catch (error) {
        throw new MappingError(`source ${JSON.stringify(this.source)}: ${(error as Error).message}`);
      }
      exec.schemaReady();
      return { exec, checked };
    } catch (error) {
      await client.shutdown().catch(() => {});
      throw error;
    }
  }

  private watched(): WatchedSchema {
    const { keyspace, table } = this.mapping;
    return { tables: [table], lostError: (reason, _last, cause) => new StoreUnavailableError('cassandra', new Error(`${reason}: the table of source ${JSON.stringify(this.source)} (${keyspace}.${table}) is gone`, { cause })) };
  }
}

/** A checked name (mapping.ts CQL_NAME) as a quoted CQL identifier, so its case is kept. */
function quote(name: string): string {
  return `"${name}"`;
}
