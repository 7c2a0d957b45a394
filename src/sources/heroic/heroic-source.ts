/**
 * The Heroic layout: a source over Heroic's Cassandra `metrics` table (docs/heroic-layout.md) or its Bigtable table
 * (docs/heroic-bigtable.md, the `bigtable` schema: bigtable-table.ts), read and
 * written in its own bytes, with series found through the catalogue instead of Heroic's Elasticsearch. In the seam's
 * vocabulary a Heroic series is a metric (its `key`) and tags, a partition is a series in one period starting at its
 * `base` (2^31 − 1 ms for ng, 2^32 for legacy and Bigtable), and every value is a double:
 * - **Resource entries** (Heroic's second map, for ids that would multiply series in Elasticsearch) are tags named
 *   `resource:<name>`: they filter, group and show like tags, and a write's `resource:` tags go into the resource map.
 *   A key whose tags already hold such a name is ambiguous and is skipped (counted as undecodable).
 * - **Partition starts**: Heroic reads `offset > start AND offset <= end`, so it never returns a point at offset 0 of
 *   a partition (its issue #208). This layout returns every point in [start, end], as every other source does.
 * - ng sources take writes (as Heroic writes them: one row per point, no TTL unless the write has one, microsecond
 *   write times); legacy sources, whose schema Heroic removed in 2019, are read-only.
 */
import { dict } from '../../lib/dict.js';
import { InputError } from '../../model/errors.js';
import { eachAlone, type IndexLoaders, type IndexRead } from '../index-loaders.js';
import type { TimeRange } from '../../model/query.js';
import type { SeriesPredicate } from '../../model/tag-filter.js';
import { settleAll } from '../../lib/settle-all.js';
import { yieldIfDue } from '../../lib/time-slice.js';
import type { Partition, Slice, Tags } from '../../model/series.js';
import type { ReadOptions } from '../../model/read-options.js';
import type { KeyLimits } from '../../model/key-limits.js';
import type { WriteBatch } from '../../model/write-batch.js';
import type { Capabilities } from '../capabilities.js';
import type { DeletedPart, FindSeriesOptions, SeriesPlan, Source } from '../source.js';
import type { Catalogue, CataloguedPartition, DecodedPartition } from '../catalogue/catalogue.js';
import { CATALOGUE_MAX_GROUP_BYTES } from '../catalogue/scan-catalogue.js';
import type { ReadRequest, RowsPage } from './metrics-table.js';
import type { HeroicSeries } from './key-bytes.js';
import { baseOf, columnOf, timestampOf, widthOf, type HeroicSchema } from './partitions.js';
import { decodeKey, encodeKey } from './row-key.js';

export const HEROIC_LAYOUT = 'heroic';

/** The tag name prefix resource entries take. */
export const RESOURCE_PREFIX = 'resource:';

/** Heroic's one type in this table (its MetricType.POINT): every value a double. */
const HEROIC_POINT = 'heroic_point';

/** Cassandra's partition keys hold 65,535 bytes; the catalogue's file keys hold shorter metric names. */
const LIMITS: KeyLimits = {
  store: "the heroic layout's",
  maxMetricBytes: CATALOGUE_MAX_GROUP_BYTES,
  maxRowKeyBytes: 65_535,
  doublesOnly: "the heroic layout's",
  minTimestampMs: 0,
};

/** Heroic's table on either store, in its keys' bytes and columns (metrics-table.ts, bigtable-table.ts). */
interface HeroicTable {
  read(key: Buffer, from: number, to: number, request: ReadRequest): AsyncGenerator<RowsPage>;
  insert(key: Buffer, columns: readonly number[], values: readonly number[], ttlSeconds: number): Promise<void>;
  delete(key: Buffer, range?: { readonly from: number; readonly to: number }): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface HeroicSourceOptions {
  readonly name: string;
  readonly schema: HeroicSchema;
  readonly table: HeroicTable;
  /** How its stored keys may be long (Cassandra's partition keys, Bigtable's row keys as Heroic writes them). */
  readonly limits?: KeyLimits;
  /** Partitions by metric (the catalogue's group), read by their key's bytes. */
  readonly catalogue: Catalogue<Buffer>;
  /** Rows per page of a read that asks for none. */
  readonly fetchSize: number;
  readonly readAhead: number;
  readonly concurrentReads: number;
}

export class HeroicSource implements Source {
  readonly layout = HEROIC_LAYOUT;
  readonly name: string;
  readonly writable: boolean;
  readonly limits: KeyLimits;
  readonly indexReads = ['catalogue'] as const;
  readonly readAhead: number;
  readonly concurrentReads: number;
  /** Its catalogue (logs, `/metrics`): Heroic keeps no index of its own in Cassandra. */
  readonly capabilities: Capabilities;
  private readonly schema: HeroicSchema;
  private readonly widthMs: number;
  /** The catalogue's partitions of a metric between two bases, as the request's loaders read them (from memory). */
  private readonly catalogueRead: IndexRead<readonly [number, number], CataloguedPartition<Buffer>[]>;
  /** The key bytes of each partition the catalogue found, as the table holds them (whatever form they were written in). */
  private readonly keyBytes = new WeakMap<Partition, Buffer>();

  constructor(private readonly options: HeroicSourceOptions) {
    this.name = options.name;
    this.schema = options.schema;
    this.writable = options.schema !== 'legacy';
    this.limits = options.limits ?? LIMITS;
    this.widthMs = widthOf(options.schema);
    this.readAhead = options.readAhead;
    this.concurrentReads = options.concurrentReads;
    this.capabilities = { catalogue: options.catalogue };
    this.catalogueRead = eachAlone(this.name, 'catalogue', async (metric, [fromBase, toBase]) =>
      options.catalogue.partitions(metric, fromBase, toBase),
    );
  }

  async metricNames(prefix: string, limit?: number): Promise<string[]> {
    return this.options.catalogue.groups(prefix, limit);
  }

  async findSeries(
    index: IndexLoaders,
    metric: string,
    range: TimeRange,
    matches: SeriesPredicate,
    options: FindSeriesOptions = {},
  ): Promise<SeriesPlan> {
    const empty: SeriesPlan = { periods: 0, partitions: [], widthMs: this.widthMs, warnings: [] };
    if (range.endMs < 0) return empty;
    const fromBase = baseOf(this.schema, Math.max(0, range.startMs));
    const toBase = baseOf(this.schema, range.endMs);
    const found = await index.load(this.catalogueRead, metric, [fromBase, toBase]);
    let bases = [...new Set(found.map((p) => p.base))];
    if (options.latestPeriods !== undefined) bases = bases.slice(-options.latestPeriods);
    const kept = new Set(bases);
    const partitions: Partition[] = [];
    /** Where each series and period went in `partitions`. */
    const placed = new Map<string, number>();
    let twoForms = 0;
    for (let i = 0; i < found.length; i++) {
      if ((i & 1023) === 1023) {
        const turn = yieldIfDue(options.lane);
        if (turn !== undefined) await turn;
      }
      const partition = found[i]!;
      if (!kept.has(partition.base) || !matches(partition.tags)) continue;
      const key: Partition = {
        metric,
        rowTime: partition.base,
        dataType: HEROIC_POINT,
        tags: partition.tags,
        kind: 'double',
      };
      // A series written both before and after Heroic added resources (2017) has two keys in that period: the engine
      // knows one partition per series and period, so the current form is read, and the plan says so.
      const id = `${partition.base}\u0000${JSON.stringify(Object.entries(partition.tags))}`;
      const at = placed.get(id);
      if (at !== undefined) {
        twoForms++;
        if (!encodeKey(this.schema, seriesOf(key), partition.base).equals(partition.stored)) continue;
        partitions[at] = key;
      } else {
        placed.set(id, partitions.length);
        partitions.push(key);
      }
      this.keyBytes.set(key, partition.stored);
    }
    const warnings = [
      ...(twoForms > 0
        ? [
            `read ${twoForms} partitions of ${metric} in their current key form only: they have a key from before Heroic's resource map too`,
          ]
        : []),
    ];
    return { periods: bases.length, partitions, widthMs: this.widthMs, warnings };
  }

  async *read(key: Partition, startMs: number, endMs: number, options: ReadOptions = {}): AsyncGenerator<Slice> {
    const base = key.rowTime;
    const from = Math.max(startMs, base);
    const to = Math.min(endMs, base + this.widthMs - 1);
    if (from > to) return;
    const bytes = this.keyBytes.get(key) ?? encodeKey(this.schema, seriesOf(key), base);
    const origin = timestampOf(this.schema, base, 0);
    const pages = this.options.table.read(bytes, columnOf(this.schema, base, from), columnOf(this.schema, base, to), {
      order: options.order ?? 'asc',
      limit: options.limit !== undefined && options.limit > 0 ? options.limit : 0,
      fetchSize: options.pageSize ?? this.options.fetchSize,
      signal: options.signal,
    });
    for await (const { columns, values } of pages) {
      const timestamps = new Float64Array(columns.length);
      for (let i = 0; i < columns.length; i++) timestamps[i] = origin + columns[i]!;
      yield { kind: 'double', key, timestamps, values };
    }
  }

  async write(batch: WriteBatch): Promise<void> {
    this.checkWritable();
    const partitions = new Map<
      string,
      { partition: CataloguedPartition<Buffer>; columns: number[]; values: number[]; ttlSeconds: number }
    >();
    for (const series of batch.series) {
      const heroic = seriesOf({ metric: series.metric, tags: series.tags });
      const seriesId = `${series.metric}\u0000${JSON.stringify(Object.entries(series.tags))}\u0000${series.ttlSeconds}`;
      for (let i = 0; i < series.timestamps.length; i++) {
        const ts = series.timestamps[i]!;
        const base = baseOf(this.schema, ts);
        const id = `${base}\u0000${seriesId}`;
        let write = partitions.get(id);
        if (write === undefined) {
          const partition = {
            group: series.metric,
            base,
            tags: series.tags,
            stored: encodeKey(this.schema, heroic, base),
          };
          partitions.set(id, (write = { partition, columns: [], values: [], ttlSeconds: series.ttlSeconds }));
        }
        write.columns.push(columnOf(this.schema, base, ts));
        // Validation let through only doubles and longs a double holds exactly (KeyLimits.doublesOnly).
        write.values.push(Number(series.values[i]));
      }
    }
    const writes = [...partitions.values()];
    try {
      await settleAll(
        writes.map((w) => this.options.table.insert(w.partition.stored, w.columns, w.values, w.ttlSeconds)),
      );
    } finally {
      // The catalogue learns every partition that may hold points now, also when a part of the batch failed.
      this.options.catalogue.learn(writes.map((w) => w.partition));
    }
  }

  async deleteRange(key: Partition, startMs: number, endMs: number): Promise<DeletedPart> {
    this.checkWritable();
    const base = key.rowTime;
    const bytes = this.keyBytes.get(key) ?? encodeKey(this.schema, seriesOf(key), base);
    const whole = startMs <= base && endMs >= base + this.widthMs - 1;
    if (whole) {
      await this.options.table.delete(bytes);
      this.options.catalogue.forget({ group: key.metric, base, tags: key.tags, stored: bytes });
      return 'partition';
    }
    const from = Math.max(startMs, base);
    const to = Math.min(endMs, base + this.widthMs - 1);
    if (from <= to)
      await this.options.table.delete(bytes, {
        from: columnOf(this.schema, base, from),
        to: columnOf(this.schema, base, to),
      });
    return 'range';
  }

  async deleteMetricName(metric: string): Promise<void> {
    this.options.catalogue.forgetGroup(metric);
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
        `is read-only: Heroic's ${this.schema} schema is read, never written (Heroic removed it in 2019)`,
      );
  }
}

/**
 * How the catalogue reads a key of the table: its series (resource entries as `resource:` tags) and base; keys in the
 * other schema's form, in neither form, or whose tags and resource entries collide under the prefix, are skipped.
 */
export function heroicKeyDecoder(schema: HeroicSchema): (key: Buffer) => DecodedPartition<Buffer> {
  // Bigtable holds one form only; each Cassandra schema's table may hold the other's keys.
  const other: HeroicSchema | undefined = schema === 'bigtable' ? undefined : schema === 'ng' ? 'legacy' : 'ng';
  return (key) => {
    const decoded = decodeKey(schema, key);
    if ('error' in decoded) {
      const why = `${decoded.error}; key ${key.toString('hex').slice(0, 200)}`;
      return other === undefined || 'error' in decodeKey(other, key)
        ? { skip: 'undecodable', why }
        : { skip: 'otherSchema', why: `a ${other} key in a ${schema} source; ${why}` };
    }
    const tags = tagsOf(decoded.series);
    if (tags === undefined)
      return {
        skip: 'undecodable',
        why: `its tags already hold a name starting with "${RESOURCE_PREFIX}"; key ${key.toString('hex').slice(0, 200)}`,
      };
    return { group: decoded.series.key, base: decoded.base, tags, stored: key };
  };
}

/** A Heroic series as the seam's tags: its tags, and its resource entries under RESOURCE_PREFIX; undefined when they collide. */
function tagsOf(series: HeroicSeries): Tags | undefined {
  const tags = dict<string>();
  for (const [name, value] of Object.entries(series.tags)) tags[name] = value;
  for (const [name, value] of Object.entries(series.resource)) {
    const tag = RESOURCE_PREFIX + name;
    if (tag in tags) return undefined;
    tags[tag] = value;
  }
  return tags;
}

/** The seam's tags of a Heroic series listed in settings, whose tag names hold no RESOURCE_PREFIX (heroic-settings.ts). */
export function listedTags(series: HeroicSeries): Tags {
  return tagsOf(series)!;
}

/** The Heroic series of a metric and tags: `resource:` tags are its resource entries. */
export function seriesOf(key: { readonly metric: string; readonly tags: Tags }): HeroicSeries {
  const tags = dict<string>();
  const resource = dict<string>();
  for (const [name, value] of Object.entries(key.tags)) {
    if (name.startsWith(RESOURCE_PREFIX)) resource[name.slice(RESOURCE_PREFIX.length)] = value;
    else tags[name] = value;
  }
  return { key: key.metric, tags, resource };
}
