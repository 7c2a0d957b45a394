/**
 * How the KairosDB layout finds a metric's series (reference §4.2): time bounds → row times → series keys → tag
 * filter, over its index tables (`row_key_time_index`, `row_keys`, the legacy `row_key_index`). The reads go through
 * the request's loaders, so concurrent plans share them.
 */
import type { TimeRange } from '../../model/query.js';
import type { SeriesPredicate } from '../../model/tag-filter.js';
import { yieldIfDue, type Lane } from '../../lib/time-slice.js';
import { encodeTagString, sliceKindOf } from '../../store/format/index.js';
import type { Partition } from '../../model/series.js';
import type { IndexedTags, RowKey, TaggedRowKeys } from '../../store/store.js';

/** The index tables as one request reads them (kairosdb-source.ts puts the request's loaders in front of the store). */
export interface IndexReader {
  rowTimes(metric: string, startMs: number, endMs: number): Promise<number[]>;
  rowKeys(metric: string, rowTime: number): Promise<RowKey[]>;
  legacyRowKeys(metric: string, startMs: number, endMs: number): Promise<RowKey[]>;
  /** Store.indexedTags; a reader without it never uses a tag index. */
  indexedTags?(metric: string, rowTime: number): Promise<IndexedTags>;
  /** Store.tagIndexedRowKeys. */
  tagIndexedRowKeys?(
    metric: string,
    rowTime: number,
    tag: string,
    value: string,
    limit?: number,
  ): Promise<TaggedRowKeys>;
}

export interface RowPlan {
  /** Row times of the metric in the range, from row_key_time_index: one row_keys read each. */
  readonly rowTimes: readonly number[];
  /** Partitions to read: legacy-index keys first, then row_keys in row-time order, de-duplicated. */
  readonly partitions: readonly Partition[];
  /** Things the caller should know (partitions skipped because their data type cannot be decoded). */
  readonly warnings: readonly string[];
}

/**
 * `widthMs` is the row width in ms (format/row-time.ts `rowWidthMs` of the store's spec); `lane` whose turns it takes.
 * `latestRowTimes` keeps only the latest that many row times with data in the range (and narrows the legacy lookup to
 * them), so a lookup from `start_absolute: 0` never walks all history.
 */
export async function planSeries(
  index: IndexReader,
  metric: string,
  range: TimeRange,
  matches: SeriesPredicate,
  widthMs: number,
  lane?: Lane,
  latestRowTimes?: number,
): Promise<RowPlan> {
  const lookupStart = lookupStartMs(range.startMs, widthMs);
  let rowTimes: number[];
  let legacy: RowKey[];
  let startMs = range.startMs;
  if (latestRowTimes === undefined) {
    [rowTimes, legacy] = await Promise.all([
      index.rowTimes(metric, lookupStart, range.endMs),
      index.legacyRowKeys(metric, lookupStart, range.endMs),
    ]);
  } else {
    const all = await index.rowTimes(metric, lookupStart, range.endMs);
    rowTimes = all.slice(-latestRowTimes);
    // Looked up from where a whole plan would, so the kept rows include those of points just after a negative start.
    if (all.length > latestRowTimes) startMs = Math.max(range.startMs, rowTimes[0]!);
    legacy = await index.legacyRowKeys(metric, lookupStartMs(startMs, widthMs), range.endMs);
  }
  const perRowTime = await Promise.all(rowTimes.map((rowTime) => seriesAt(index, metric, rowTime, matches.exact)));
  const seen = new Set<string>();
  const partitions: Partition[] = [];
  const unknownTypes = new Set<string>();
  const keys = [legacy, ...perRowTime].flat();
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // A metric can have a million series, and a regex filter costs microseconds each.
    if ((i & 1023) === 1023) {
      const turn = yieldIfDue(lane);
      if (turn !== undefined) await turn;
    }
    // Every row holds points in [rowTime, rowTime + width), negative rows included.
    if (key.rowTime + widthMs <= startMs || !matches(key.tags)) continue;
    const kind = sliceKindOf(key.dataType);
    if (kind === undefined) {
      unknownTypes.add(key.dataType);
      continue;
    }
    // The legacy and the new index can both list a partition (reference §4.2: KairosDB de-duplicates through a set).
    const id = `${key.rowTime}\u0000${key.dataType}\u0000${encodeTagString(key.tags)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    partitions.push({ metric: key.metric, rowTime: key.rowTime, dataType: key.dataType, tags: key.tags, kind });
  }
  const warnings = [...unknownTypes].map(
    (type) => `skipped series of ${metric} with data type ${type}, which Kairograph cannot decode`,
  );
  return { rowTimes, partitions, warnings };
}

/**
 * Rows of one tag=value partition read to learn whether it is small, where a filter pins several indexed tags: one
 * page of Cassandra's default 5000 rows.
 */
const TAG_INDEX_PROBE_ROWS = 4096;

/**
 * The candidate series of one row time: row_keys, or where the filter pins tags whose index is complete there, the
 * most selective of them from the tag index (KairosDB 1.3's lookup; docs/kairosdb-format.md §6). The caller
 * checks every candidate against the whole filter, so the index only narrows. Unlike KairosDB, tags that are not indexed
 * (or periods written before they were) are read from row_keys instead of from an index that never listed them.
 */
async function seriesAt(
  index: IndexReader,
  metric: string,
  rowTime: number,
  exact: ReadonlyMap<string, readonly string[]> | undefined,
): Promise<RowKey[]> {
  if (
    exact === undefined ||
    exact.size === 0 ||
    index.indexedTags === undefined ||
    index.tagIndexedRowKeys === undefined
  )
    return index.rowKeys(metric, rowTime);
  const indexed = await index.indexedTags(metric, rowTime);
  const groups = [...exact].filter(([tag]) => indexed === 'all' || indexed.has(tag));
  if (groups.length === 0) return index.rowKeys(metric, rowTime);
  const read = async ([tag, values]: [string, readonly string[]], limit?: number) => {
    const parts = await Promise.all(
      values.map((value) => index.tagIndexedRowKeys!(metric, rowTime, tag, value, limit)),
    );
    return { keys: parts.flatMap((part) => part.keys), complete: parts.every((part) => part.complete) };
  };
  if (groups.length === 1) return (await read(groups[0]!)).keys;
  // Several pinned tags: the smallest group wins (any one holds every match). KairosDB estimates sizes from 50 rows by
  // the wrong column (§4 C); here each group's first rows are read and a group that ends within them is counted exactly.
  const probes = await Promise.all(groups.map((group) => read(group, TAG_INDEX_PROBE_ROWS)));
  let best: RowKey[] | undefined;
  for (const probe of probes)
    if (probe.complete && (best === undefined || probe.keys.length < best.length)) best = probe.keys;
  if (best !== undefined) return best;
  // Every group is large: the one with the fewest partitions to read, read whole (never more than row_keys holds).
  const fewest = groups.reduce((a, b) => (b[1].length < a[1].length ? b : a));
  return (await read(fewest)).keys;
}

/**
 * Where the index lookup of a range must start. A negative timestamp's row starts up to a row width before it
 * (KairosDB's rows are unaligned there: -9 is in row -18 of a 10 ms width), so KairosDB's own lookup from
 * rowTimeOf(start) misses points just after a negative start. Look one width earlier; planSeries drops the rows that
 * cannot reach the range.
 */
function lookupStartMs(startMs: number, widthMs: number): number {
  return startMs < 0 ? Math.max(startMs - widthMs + 1, Number.MIN_SAFE_INTEGER) : startMs;
}
