/**
 * A user's own table on Cassandra, as its mapping reads it: one prepared statement per (series, bucket) read, never
 * `ALLOW FILTERING` nor an `IN` over partitions; the distinct partition keys and the series in each for the catalogue;
 * the partitions an SAI index finds; inserts into the mapped columns and deletes inside one bucket. Every name in the CQL was checked against system_schema when it connected
 * (mapping.ts) and is quoted; every value is bound.
 */
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../../model/errors.js';
import type { ExecutorStats } from '../../store/cassandra-client/executor.js';
import { pagesAhead } from '../../store/cassandra-client/pages.js';
import { installLeanPageHook } from '../../store/cassandra-client/lean-page-hook.js';
import { Limiter } from '../../store/cassandra-client/limiter.js';
import type { ResolvedConnection } from '../../store/cassandra-client/connection-options.js';
import { Reconnecting } from '../../store/cassandra-client/reconnecting.js';
import { pageOfKeys, type KeyPages } from '../catalogue/scan-catalogue.js';
import { rowTags, type CheckedTable, type TableMapping } from './mapping.js';
import { TimeValueRows } from './time-value-rows.js';
import { connectTable, MappingError, quote, type Connection, type TableStatement } from './table-connection.js';

/** A partition's key values in partition key order, bound as the columns' types. */
type PartitionValues = readonly unknown[];

/**
 * Where one series' rows are: its partition, the values of its prefix tags (bound by equality), and its row tags
 * (clustering columns after the time, then regular columns), as text to tell its rows apart and bound for writes.
 */
export interface SeriesPlace {
  readonly partition: PartitionValues;
  readonly prefix: readonly unknown[];
  readonly rows: readonly { readonly name: string; readonly text: string; readonly value: unknown }[];
}

/** A partition key as the catalogue's scan reads it, with one series' other tags: each column's value by its name. */
export type KeyColumns = Readonly<Record<string, unknown>>;

/** Most series one partition may hold (values of its prefix and row tags): a partition beyond it is catalogued in part. */
const MAX_SERIES_PER_PARTITION = 10_000;

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
    mapping: TableMapping,
    private readonly cassandraOptions: ResolvedConnection,
    private readonly source: string,
    lean: boolean,
  ) {
    if (lean) installLeanPageHook();
    const target = `${quote(mapping.keyspace)}.${quote(mapping.table)}`;
    this.q = (rest) => rest.replaceAll('$T', target);
    const limiter = new Limiter(cassandraOptions.concurrency);
    const { log, contactPoints, reconnectDelayMs } = cassandraOptions;
    this.link = new Reconnecting(
      () => connectTable(mapping, cassandraOptions, source, lean, limiter, this.stats),
      (c) => c.exec.client.shutdown(),
      reconnectDelayMs,
      {
        connected: () => log.info({ table: `${mapping.keyspace}.${mapping.table}` }, 'connected to the table'),
        failed: (error, repeated) => {
          if (!repeated)
            log.warn(
              { err: error instanceof Error ? error.message : String(error), contactPoints, retryMs: reconnectDelayMs },
              'cannot read the table; retrying in the background',
            );
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

  /**
   * A page of the table's distinct partition keys in token order; where a partition holds several series (prefix or
   * row tags), one entry per series, each with the partition's token (a page always ends after a whole partition).
   */
  async keys(after: bigint, limit: number): Promise<{ keys: { token: bigint; key: KeyColumns }[]; done: boolean }> {
    const { exec, checked } = await this.connection();
    const names = checked.partitionKey.map((c) => quote(c.name)).join(', ');
    const query = this.q(
      `SELECT DISTINCT ${names}, token(${names}) AS key_token FROM $T WHERE token(${names}) > ? LIMIT ?`,
    );
    const result = await exec.page('table.keys', query, [cassandra.types.Long.fromString(after.toString()), limit], {
      fetchSize: limit,
    });
    const page = pageOfKeys(
      result.rows.map((row) => ({
        key: Object.fromEntries(checked.partitionKey.map((c) => [c.name, row[c.name]])) as KeyColumns,
        token: BigInt((row['key_token'] as cassandra.types.Long).toString()),
      })),
      limit,
    );
    if (checked.prefixTags.length === 0 && rowTags(checked).length === 0) return page;
    const keys: { token: bigint; key: KeyColumns }[] = [];
    for (const { token, key } of page.keys)
      for (const more of await this.seriesOf(key)) keys.push({ token, key: { ...key, ...more } });
    return { keys, done: page.done };
  }

  /**
   * The values of the prefix and row tags in one partition, one entry per series, at most MAX_SERIES_PER_PARTITION.
   * Prefix tags alone are listed by skipping: `(c1, c2) > (?, ?) LIMIT 1` from one series to the next, a read of one
   * row per series whatever the partition holds. Row tags are in the rows themselves, so their partition is read whole
   * (only the tag columns): that is the price of tags outside the primary key's prefix.
   */
  async seriesOf(key: KeyColumns): Promise<KeyColumns[]> {
    const { exec, checked } = await this.connection();
    const where = checked.partitionKey.map((c) => `${quote(c.name)} = ?`).join(' AND ');
    const partition = checked.partitionKey.map((c) => key[c.name]);
    const found: KeyColumns[] = [];
    const rows = rowTags(checked);
    if (rows.length === 0) {
      const names = checked.prefixTags.map((c) => quote(c.name)).join(', ');
      // A skip moves in clustering order: past the last value up an ascending column, below it down a descending one.
      const step = checked.prefixTags[0]!.order === 'desc' ? '<' : '>';
      const first = this.q(`SELECT ${names} FROM $T WHERE ${where} LIMIT 1`);
      const next = this.q(
        `SELECT ${names} FROM $T WHERE ${where} AND (${names}) ${step} (${checked.prefixTags.map(() => '?').join(', ')}) LIMIT 1`,
      );
      let last: cassandra.types.Row | undefined;
      while (found.length < MAX_SERIES_PER_PARTITION) {
        const params = last === undefined ? partition : [...partition, ...checked.prefixTags.map((c) => last![c.name])];
        const result = await exec.page('table.series', last === undefined ? first : next, [...params], {
          fetchSize: 1,
        });
        last = result.rows[0];
        if (last === undefined) break;
        found.push(Object.fromEntries(checked.prefixTags.map((c) => [c.name, last![c.name]])));
      }
      if (found.length >= MAX_SERIES_PER_PARTITION) this.tooManySeries(key);
      return found;
    }
    const columns = [...checked.prefixTags, ...rows];
    const query = this.q(`SELECT ${columns.map((c) => quote(c.name)).join(', ')} FROM $T WHERE ${where}`);
    const seen = new Set<string>();
    for await (const result of pagesAhead((pageState) =>
      exec.page('table.series', query, [...partition], { fetchSize: 5000, pageState }),
    )) {
      for (const row of result.rows) {
        const values = columns.map((c) => row[c.name]);
        // A row without a value of a row tag belongs to no series.
        if (values.some((v) => v === null || v === undefined)) continue;
        const id = JSON.stringify(values.map(String));
        if (seen.has(id)) continue;
        seen.add(id);
        found.push(Object.fromEntries(columns.map((c, i) => [c.name, values[i]])));
        if (found.length >= MAX_SERIES_PER_PARTITION) {
          this.tooManySeries(key);
          return found;
        }
      }
    }
    return found;
  }

  /** Says which partition was cut short: its series past MAX_SERIES_PER_PARTITION are not found. */
  private tooManySeries(key: KeyColumns): void {
    const partition = Object.fromEntries(Object.entries(key).map(([name, value]) => [name, String(value)]));
    this.cassandraOptions.log.warn(
      { source: this.source, partition, limit: MAX_SERIES_PER_PARTITION },
      'a partition holds more series than a table source lists; the rest are not found',
    );
  }

  /**
   * The partitions with a row whose `tag` is `value`, through the tag's storage-attached index: one row per partition
   * (`PER PARTITION LIMIT 1`, paged), its key columns and the tag. SAI takes no restriction of the bucket alone beside it
   * (Cassandra asks for ALLOW FILTERING), so every bucket's partitions come and the caller keeps those of its range.
   */
  async *partitionsWith(tag: string, value: unknown): AsyncGenerator<KeyColumns[]> {
    const { exec, checked } = await this.connection();
    const names = [
      ...checked.partitionKey.map((c) => c.name),
      ...(checked.partitionKey.some((c) => c.name === tag) ? [] : [tag]),
    ];
    const query = this.q(`SELECT ${names.map(quote).join(', ')} FROM $T WHERE ${quote(tag)} = ? PER PARTITION LIMIT 1`);
    for await (const result of pagesAhead((pageState) =>
      exec.page('table.index', query, [value], { fetchSize: 1000, pageState }),
    )) {
      yield result.rows.map((row) => Object.fromEntries(names.map((name) => [name, row[name]])));
    }
  }

  /**
   * Rows of one series with from <= time <= to whose `column` is set, paged, the next page on its way. Row tags are
   * selected beside the value and a row of another series is left out here.
   */
  async *read(
    place: SeriesPlace,
    column: string,
    fromMs: number,
    toMs: number,
    request: { order: 'asc' | 'desc'; limit: number; fetchSize: number; signal?: AbortSignal | undefined },
  ): AsyncGenerator<TableRows> {
    request.signal?.throwIfAborted();
    const { exec, checked } = await this.connection();
    const time = quote(checked.mapping.time);
    const selected = [time, quote(column), ...place.rows.map((r) => quote(r.name))];
    const query = this.q(
      `SELECT ${selected.join(', ')} FROM $T WHERE ${this.placeWhere(checked)} AND ${this.timeRange(checked)} ORDER BY ${time} ${request.order.toUpperCase()}${request.limit > 0 && place.rows.length === 0 ? ' LIMIT ?' : ''}`,
    );
    const params: unknown[] = [...place.partition, ...place.prefix, checked.time.from(fromMs), checked.time.to(toMs)];
    if (request.limit > 0 && place.rows.length === 0) params.push(request.limit);
    let left = request.limit > 0 ? request.limit : Infinity;
    for await (const result of pagesAhead((pageState) =>
      exec.page('table.select', query, params, { fetchSize: request.fetchSize, pageState, signal: request.signal }),
    )) {
      const rows = result.rows as unknown as TimeValueRows | cassandra.types.Row[];
      if (rows.length === 0) continue;
      if (rows instanceof TimeValueRows) {
        yield rows;
        continue;
      }
      const times: number[] = [];
      const cells: unknown[] = [];
      for (let i = 0; i < rows.length && left > 0; i++) {
        const row = rows[i]!;
        if (!ofSeries(row, place)) continue;
        times.push(checked.time.ms(row[checked.mapping.time]));
        cells.push(row[column]);
        // A limit counts the series' points, which only this side can tell apart from other series' rows.
        if (place.rows.length > 0 && row[column] !== null && row[column] !== undefined) left--;
      }
      if (times.length > 0) yield { times: Float64Array.from(times), cells };
      if (left <= 0) return;
    }
  }

  /** Writes one cell per point of one series, with a TTL when `ttlSeconds` > 0 (else the table's default applies). */
  async insert(
    place: SeriesPlace,
    column: string,
    times: readonly number[],
    values: readonly unknown[],
    ttlSeconds: number,
  ): Promise<void> {
    const { exec, checked } = await this.connection();
    const names = [...checked.partitionKey, ...checked.prefixTags].map((c) => quote(c.name));
    names.push(quote(checked.mapping.time), ...place.rows.map((r) => quote(r.name)), quote(column));
    const query = this.q(
      `INSERT INTO $T (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})${ttlSeconds > 0 ? ' USING TTL ?' : ''}`,
    );
    const keyed = [...place.partition, ...place.prefix];
    const rowed = place.rows.map((r) => r.value);
    const queries = times.map((t, i) => {
      const params = [...keyed, checked.time.value(t), ...rowed, values[i]];
      return { query, params: ttlSeconds > 0 ? [...params, ttlSeconds] : params };
    });
    // The driver's unit (microseconds): what a user's own writer most likely used.
    await exec.partitionBatches('table.insert', queries, Date.now() * 1000);
  }

  /**
   * Deletes within one series: its rows with from <= time <= to when `column` is undefined (a table of one metric),
   * else only `column`'s cells of those rows (other metrics' values stay). A range delete where the primary key's prefix
   * pins the series; one statement per row where the partition holds other series' rows between (row tags) or a cell
   * goes.
   */
  async delete(place: SeriesPlace, fromMs: number, toMs: number, column?: string): Promise<void> {
    const { exec, checked } = await this.connection();
    const time = quote(checked.mapping.time);
    const keyed = [...place.partition, ...place.prefix];
    if (column === undefined && place.rows.length === 0) {
      await exec.mutate(
        'table.delete',
        this.q(`DELETE FROM $T WHERE ${this.placeWhere(checked)} AND ${this.timeRange(checked)}`),
        [...keyed, checked.time.from(fromMs), checked.time.to(toMs)],
        Date.now() * 1000,
      );
      return;
    }
    const after = checked.afterTimeTags.map((c) => ` AND ${quote(c.name)} = ?`).join('');
    const deleteRow = this.q(
      `DELETE ${column === undefined ? '' : `${quote(column)} `}FROM $T WHERE ${this.placeWhere(checked)} AND ${time} = ?${after}`,
    );
    const afterValues = place.rows.slice(0, checked.afterTimeTags.length).map((r) => r.value);
    const selected = [time, ...(column === undefined ? [] : [quote(column)]), ...place.rows.map((r) => quote(r.name))];
    const query = this.q(
      `SELECT ${selected.join(', ')} FROM $T WHERE ${this.placeWhere(checked)} AND ${this.timeRange(checked)}`,
    );
    for await (const result of pagesAhead((pageState) =>
      exec.page('table.select', query, [...keyed, checked.time.from(fromMs), checked.time.to(toMs)], {
        fetchSize: 1000,
        pageState,
      }),
    )) {
      const rows = result.rows as unknown as TimeValueRows | cassandra.types.Row[];
      // The row's own time value: a timeuuid or a microsecond is more than the ms the engine knows. Lean pages come
      // only of timestamp and millisecond columns, whose ms are their values.
      const times =
        rows instanceof TimeValueRows
          ? Array.from(rows.times, (ms) => checked.time.value(ms))
          : rows
              .filter(
                (row) =>
                  ofSeries(row, place) && (column === undefined || (row[column] !== null && row[column] !== undefined)),
              )
              .map((row) => row[checked.mapping.time]);
      await Promise.all(
        times.map((time) =>
          exec.mutate('table.delete', deleteRow, [...keyed, time, ...afterValues], Date.now() * 1000),
        ),
      );
    }
  }

  /** Statements sent, by name (tests prove which path a query took). */
  get statements(): Readonly<Record<string, number>> {
    return this.stats.counts;
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

  /** The series' partition and prefix tags, bound in that order. */
  private placeWhere(checked: CheckedTable): string {
    return [...checked.partitionKey, ...checked.prefixTags].map((c) => `${quote(c.name)} = ?`).join(' AND ');
  }

  /** `time >= ? AND time <= ?`, each end as the time column's type compares. */
  private timeRange(checked: CheckedTable): string {
    const time = quote(checked.mapping.time);
    return `${time} >= ${checked.time.marker('from')} AND ${time} <= ${checked.time.marker('to')}`;
  }
}

/** Whether a row holds the series' row tags (each cell as the text its tag is). */
function ofSeries(row: cassandra.types.Row, place: SeriesPlace): boolean {
  for (const r of place.rows) {
    const cell = row[r.name];
    if (cell === null || cell === undefined || String(cell) !== r.text) return false;
  }
  return true;
}
