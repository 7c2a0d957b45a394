/**
 * The `table` layout: a user's own Cassandra table on the (entity, time bucket) pattern as a source. A series is a
 * metric (a mapped value column) and its tags (the partition key columns other than the bucket, and any clustering or
 * regular columns named as tags, as strings); a partition is that series in one bucket, read with one prepared
 * statement (rows of other series in the same table partition told apart in memory); every value column of a row is
 * a point of its metric, a null cell none. A filter pinning a tag with an SAI index finds its series there. Series are found through the catalogue (the table's distinct partition
 * keys, scanned in the background) or a list in the settings; a query may span at most `maxBuckets` buckets, and
 * buckets wholly older than the table's default TTL are not read.
 */
import { dict } from '../../lib/dict.js';
import { BudgetExceededError, InputError } from '../../model/errors.js';
import { eachAlone, type IndexLoaders, type IndexRead } from '../index-loaders.js';
import type { TimeRange } from '../../model/query.js';
import type { SeriesPredicate } from '../../model/tag-filter.js';
import { settleAll } from '../../lib/settle-all.js';
import { yieldIfDue } from '../../lib/time-slice.js';
import type { Catalogue, CataloguedPartition, DecodedPartition } from '../catalogue/scan-catalogue.js';
import type { Partition, Slice, Tags } from '../../model/series.js';
import type { ReadOptions } from '../../model/read-options.js';
import type { KeyLimits } from '../../model/key-limits.js';
import type { WriteBatch } from '../../model/write-batch.js';
import type { Capabilities } from '../capabilities.js';
import type { DeletedPart, FindSeriesOptions, SeriesPlan, Source } from '../source.js';
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS } from './bucket-layouts.js';
import type { Buckets } from './buckets.js';
import { rowTags, VALUE_TYPES, type CheckedTable, type TableMapping } from './mapping.js';
import { TimeValueRows } from './time-value-rows.js';
import type { KeyColumns, SeriesPlace, UserTable } from './user-table.js';
import { sliceOfCells, seriesTags, seriesPlace, tagValue, cellValue } from './table-values.js';

export const TABLE_LAYOUT = 'table';

/** Cassandra's keys hold 65,535 bytes; names and tags are the table's own, so only those bound them. */
const LIMITS: KeyLimits = { store: "the table layout's", maxMetricBytes: 65_535, maxRowKeyBytes: 65_535 };

/** Most values of an indexed tag a filter may pin for the index to be asked (one index query each); beyond, the catalogue answers. */
const MAX_INDEXED_VALUES = 32;

export interface TableSourceOptions {
  readonly name: string;
  readonly mapping: TableMapping;
  readonly table: UserTable;
  /** The buckets of the table's bucket column as its type binds them (known once the table was reached). */
  readonly buckets: (checked: CheckedTable) => Buckets;
  /** Partitions by bucket start (one group, ''), stored as their tags' JSON. */
  readonly catalogue: Catalogue<string>;
  readonly writable: boolean;
  /** Most buckets one query may span (the budget `maxBucketsPerQuery`). */
  readonly maxBuckets: number;
  readonly fetchSize: number;
  readonly readAhead: number;
  readonly concurrentReads: number;
  /** The clock (tests set it): buckets wholly before now − the table's TTL are skipped. */
  readonly now?: () => number;
}

export class TableSource implements Source {
  readonly layout = TABLE_LAYOUT;
  readonly name: string;
  readonly writable: boolean;
  readonly limits = LIMITS;
  readonly indexReads = ['catalogue', 'index'] as const;
  readonly readAhead: number;
  readonly concurrentReads: number;
  /** Its catalogue (logs, `/metrics`): a table's own index finds series only for the tags it indexes. */
  readonly capabilities: Capabilities;
  /**
   * Its index reads, as the request's loaders make them: the catalogue's partitions between two bucket starts (from
   * memory), and those an indexed tag's values find (one SAI query per value).
   */
  private readonly reads: {
    readonly catalogue: IndexRead<readonly [number, number], CataloguedPartition<string>[]>;
    readonly index: IndexRead<readonly [string, number, number, ...string[]], CataloguedPartition<string>[]>;
  };

  constructor(private readonly options: TableSourceOptions) {
    this.name = options.name;
    this.writable = options.writable;
    this.readAhead = options.readAhead;
    this.concurrentReads = options.concurrentReads;
    this.capabilities = { catalogue: options.catalogue };
    this.reads = {
      catalogue: eachAlone(this.name, 'catalogue', async (_, [fromBase, toBase]: readonly [number, number]) =>
        options.catalogue.partitions('', fromBase, toBase),
      ),
      index: eachAlone(
        this.name,
        'index',
        async (_, [tag, fromBase, toBase, ...values]: readonly [string, number, number, ...string[]]) => {
          const checked = await options.table.checked();
          return this.findIndexed(checked, options.buckets(checked), { tag, values }, fromBase, toBase);
        },
      ),
    };
  }

  async metricNames(prefix: string, limit?: number): Promise<string[]> {
    const names = Object.keys(this.options.mapping.metrics)
      .filter((name) => name.startsWith(prefix))
      .sort();
    return limit === undefined ? names : names.slice(0, limit);
  }

  async findSeries(
    index: IndexLoaders,
    metric: string,
    range: TimeRange,
    matches: SeriesPredicate,
    options: FindSeriesOptions = {},
  ): Promise<SeriesPlan> {
    const { maxBuckets } = this.options;
    const column = this.options.mapping.metrics[metric];
    if (column === undefined || range.startMs > range.endMs)
      return { periods: 0, partitions: [], widthMs: 0, warnings: [] };
    const checked = await this.options.table.checked();
    const buckets = this.options.buckets(checked);
    const widthMs = buckets.maxWidthMs;
    // Buckets are calendar or epoch based, over the years 0000 to 9999; no row is outside them.
    const startMs = Math.max(range.startMs, MIN_TIMESTAMP_MS);
    const endMs = Math.min(range.endMs, MAX_TIMESTAMP_MS);
    if (startMs > endMs) return { periods: 0, partitions: [], widthMs, warnings: [] };
    let spanned: ReturnType<typeof buckets.between>;
    try {
      spanned = buckets.between(startMs, endMs, maxBuckets);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new BudgetExceededError(
        'query',
        'buckets',
        maxBuckets,
        `maxBucketsPerQuery of source ${JSON.stringify(this.name)}: ${error.message}`,
      );
    }
    // Buckets wholly older than the table's TTL hold nothing but tombstones.
    const ttlMs = checked.defaultTtlSeconds * 1000;
    const oldest = ttlMs > 0 ? (this.options.now ?? Date.now)() - ttlMs : -Infinity;
    const live = spanned.filter((b) => b.endMs > oldest);
    if (live.length === 0) return { periods: 0, partitions: [], widthMs, warnings: [] };
    const fromBase = live[0]!.startMs;
    const toBase = live.at(-1)!.startMs;
    const indexed = indexedFilter(checked, matches);
    const found =
      indexed === undefined
        ? await index.load(this.reads.catalogue, '', [fromBase, toBase])
        : await index.load(this.reads.index, '', [indexed.tag, fromBase, toBase, ...indexed.values]);
    let bases = [...new Set(found.map((p) => p.base))];
    if (options.latestPeriods !== undefined) bases = bases.slice(-options.latestPeriods);
    const kept = new Set(bases);
    // The value column's CQL type names the series' type; what it holds as slices is its value type.
    const dataType = checked.metricColumns[metric]!.type;
    const kind = VALUE_TYPES[dataType]!;
    const partitions: Partition[] = [];
    for (let i = 0; i < found.length; i++) {
      if ((i & 1023) === 1023) {
        const turn = yieldIfDue(options.lane);
        if (turn !== undefined) await turn;
      }
      const p = found[i]!;
      if (kept.has(p.base) && matches(p.tags))
        partitions.push({ metric, rowTime: p.base, dataType, tags: p.tags, kind });
    }
    return { periods: bases.length, partitions, widthMs, warnings: [] };
  }

  /**
   * The partitions of the range's buckets with a row whose indexed tag has one of `values`, through the tag's SAI index
   * (user-table.ts partitionsWith), so a series the catalogue has not seen yet is found; what it finds is taught to the
   * catalogue. Where the partition holds other series beside (prefix or row tags not pinned here), they are listed as
   * the catalogue lists them, and the filter keeps its own.
   */
  private async findIndexed(
    checked: CheckedTable,
    buckets: Buckets,
    indexed: { tag: string; values: readonly string[] },
    fromBase: number,
    toBase: number,
  ): Promise<CataloguedPartition<string>[]> {
    const { table } = this.options;
    const decode = tableKeyDecoder(checked.mapping, buckets);
    const others = [...checked.prefixTags, ...rowTags(checked)].filter((c) => c.name !== indexed.tag);
    const found = new Map<string, CataloguedPartition<string>>();
    for (const value of indexed.values) {
      let bound: unknown;
      try {
        bound = tagValue(checked.tagTypes[indexed.tag]!, value, 'where');
      } catch {
        continue; // no row of the column's type holds it
      }
      for await (const keys of table.partitionsWith(indexed.tag, bound)) {
        for (const key of keys) {
          const bucket = buckets.fromColumn(key[checked.mapping.bucket.column]);
          if ('error' in bucket || bucket.startMs < fromBase || bucket.startMs > toBase) continue;
          for (const series of others.length === 0
            ? [key]
            : (await table.seriesOf(key)).map((more) => ({ ...key, ...more }))) {
            const p = decode(series);
            if (!('skip' in p)) found.set(`${p.base}\u0000${p.stored}`, p);
          }
        }
      }
    }
    const partitions = [...found.values()].sort((a, b) => a.base - b.base);
    this.options.catalogue.learn(partitions);
    return partitions;
  }

  async *read(key: Partition, startMs: number, endMs: number, options: ReadOptions = {}): AsyncGenerator<Slice> {
    const checked = await this.options.table.checked();
    const metric = checked.metricColumns[key.metric];
    if (metric === undefined) return;
    const bucket = this.options.buckets(checked).of(key.rowTime);
    const from = Math.max(startMs, bucket.startMs);
    const to = Math.min(endMs, bucket.endMs - 1);
    if (from > to) return;
    const kind = VALUE_TYPES[metric.type]!;
    const pages = this.options.table.read(seriesPlace(checked, key.tags, bucket.value), metric.column, from, to, {
      order: options.order ?? 'asc',
      limit: options.limit !== undefined && options.limit > 0 ? options.limit : 0,
      fetchSize: options.pageSize ?? this.options.fetchSize,
      signal: options.signal,
    });
    for await (const page of pages) {
      if (page instanceof TimeValueRows) {
        if (page.times.length > 0)
          yield kind === 'long'
            ? { kind, key, timestamps: page.times, values: page.values, ...(page.exact ? { exact: page.exact } : {}) }
            : { kind: 'double', key, timestamps: page.times, values: page.values };
        continue;
      }
      const slice = sliceOfCells(kind, key, page.times, page.cells);
      if (slice !== undefined) yield slice;
    }
  }

  async write(batch: WriteBatch): Promise<void> {
    this.checkWritable();
    const checked = await this.options.table.checked();
    const writes = new Map<
      string,
      { key: SeriesPlace; column: string; times: number[]; values: unknown[]; ttl: number; base: number; tags: Tags }
    >();
    batch.series.forEach((series, s) => {
      const metric = checked.metricColumns[series.metric];
      if (metric === undefined)
        throw new InputError(
          `series[${s}].metric`,
          series.metric,
          `must be one of the metrics of source ${JSON.stringify(this.name)}: ${Object.keys(checked.metricColumns).join(', ')}`,
        );
      const tags = seriesTags(checked, series.tags, `series[${s}].tags`);
      const kind = VALUE_TYPES[metric.type]!;
      if ((kind === 'string') !== (series.type === 'string'))
        throw new InputError(
          `series[${s}].type`,
          series.type,
          `must fit column ${metric.column} of type ${metric.type}`,
        );
      const buckets = this.options.buckets(checked);
      const seriesId = `${series.metric}\u0000${JSON.stringify(Object.entries(tags))}\u0000${series.ttlSeconds}`;
      for (let i = 0; i < series.timestamps.length; i++) {
        if (!checked.time.holds(series.timestamps[i]!))
          throw new InputError(
            `series[${s}].points[${i}].time`,
            series.timestamps[i]!,
            `must be a whole second for the time column ${checked.mapping.time} of unit seconds`,
          );
        const bucket = buckets.of(series.timestamps[i]!);
        const id = `${bucket.startMs}\u0000${seriesId}`;
        let write = writes.get(id);
        if (write === undefined)
          writes.set(
            id,
            (write = {
              key: seriesPlace(checked, tags, bucket.value),
              column: metric.column,
              times: [],
              values: [],
              ttl: series.ttlSeconds,
              base: bucket.startMs,
              tags,
            }),
          );
        write.times.push(series.timestamps[i]!);
        write.values.push(cellValue(metric.type, series.values[i]!, `series[${s}].points[${i}].value`));
      }
    });
    const all = [...writes.values()];
    try {
      await settleAll(all.map((w) => this.options.table.insert(w.key, w.column, w.times, w.values, w.ttl)));
    } finally {
      // Every partition that may hold points now, also when a part of the batch failed.
      this.options.catalogue.learn(
        all.map((w) => ({ group: '', base: w.base, tags: w.tags, stored: JSON.stringify(Object.entries(w.tags)) })),
      );
    }
  }

  async deleteRange(key: Partition, startMs: number, endMs: number): Promise<DeletedPart> {
    this.checkWritable();
    const checked = await this.options.table.checked();
    const metric = checked.metricColumns[key.metric];
    if (metric === undefined) return 'range';
    const bucket = this.options.buckets(checked).of(key.rowTime);
    const from = Math.max(startMs, bucket.startMs);
    const to = Math.min(endMs, bucket.endMs - 1);
    // With one metric a row is that metric's point: rows go; with several, only this metric's cells.
    const alone = Object.keys(checked.metricColumns).length === 1;
    if (from <= to)
      await this.options.table.delete(
        seriesPlace(checked, key.tags, bucket.value),
        from,
        to,
        alone ? undefined : metric.column,
      );
    const whole = alone && startMs <= bucket.startMs && endMs >= bucket.endMs - 1;
    if (whole)
      this.options.catalogue.forget({
        group: '',
        base: bucket.startMs,
        tags: key.tags,
        stored: JSON.stringify(Object.entries(key.tags)),
      });
    return whole ? 'partition' : 'range';
  }

  async deleteMetricName(): Promise<void> {
    // The metrics are the mapping's columns: they stay.
  }

  ping(): Promise<void> {
    return this.options.table.ping();
  }

  async close(): Promise<void> {
    await settleAll([this.options.catalogue.close(), this.options.table.close()]);
  }

  private checkWritable(): void {
    if (!this.writable)
      throw new InputError(
        'source',
        this.name,
        'is read-only: a table source takes writes only with "writable": true in its settings',
      );
  }
}

/** How the catalogue reads a partition key of the table: the entity's tags and the bucket's start. */
export function tableKeyDecoder(
  mapping: TableMapping,
  buckets: Buckets,
): (key: KeyColumns) => DecodedPartition<string> {
  return (columns) => {
    const bucket = buckets.fromColumn(columns[mapping.bucket.column]);
    if ('error' in bucket) return { skip: 'undecodable', why: bucket.error };
    const tags = dict<string>();
    for (const name of mapping.tags) {
      const value = columns[name];
      if (value === null || value === undefined)
        return { skip: 'undecodable', why: `partition key column ${name} is null` };
      tags[name] = String(value);
    }
    return { group: '', base: bucket.startMs, tags, stored: JSON.stringify(Object.entries(tags)) };
  };
}

/**
 * The indexed tag a filter pins to the fewest values (at most MAX_INDEXED_VALUES), whose index finds the query's
 * series; undefined when the filter pins none, and the catalogue answers.
 */
export function indexedFilter(
  checked: Pick<CheckedTable, 'indexedTags'>,
  matches: SeriesPredicate,
): { tag: string; values: readonly string[] } | undefined {
  let best: { tag: string; values: readonly string[] } | undefined;
  for (const tag of checked.indexedTags) {
    const values = matches.exact?.get(tag);
    if (values === undefined || values.length > MAX_INDEXED_VALUES) continue;
    if (best === undefined || values.length < best.values.length) best = { tag, values };
  }
  return best;
}
