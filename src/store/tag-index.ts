/**
 * KairosDB 1.3's tag index, the parts both stores share: the `TAG_INDEXED_METRICS` setting in KairosDB's own forms
 * (`tag_indexed_row_key_lookup_metrics`), the index rows KairosDB writes for a series (`single_tag_pair` values and
 * the murmur3 `tag_collection_hash`), and which (metric, tag, row period) the index answers completely for.
 */
import { murmur3TagHash } from './format/murmur3.js';
import type { IndexedTags, RowKey } from './store.js';
import type { Tags } from '../model/series.js';

export type { IndexedTags } from './store.js';

/** TAG_INDEXED_METRICS, normalised once. */
export interface TagIndexConfig {
  /** `["*"]`: every tag of every metric (KairosDB's `m_alwaysUseTagIndexedLookup`). */
  readonly everyMetric: boolean;
  /** A metric → the tags indexed for it, or `all` (an empty list or one holding `*`). */
  readonly metrics: ReadonlyMap<string, IndexedTags>;
}

/** KairosDB's default, `{}`: nothing is indexed. */
/**
 * The service_index partition (service, service key) where a store keeps since when each configured tag index is
 * complete. KairosDB's metadata API lists it, and nothing of KairosDB's reads it.
 */
export const COVERAGE_SERVICE = 'kairograph';
export const COVERAGE_SERVICE_KEY = 'tag_index_since';

export const NO_TAG_INDEX: TagIndexConfig = { everyMetric: false, metrics: new Map() };

const NO_TAGS: ReadonlySet<string> = new Set();

/**
 * KairosDB's two forms (ClusterConfiguration): an object from metric to a list of tags (`[]` or a list holding `*`
 * means all tags), or a list of metrics whose every tag is indexed, where `*` means every metric. Throws an Error whose
 * message says what is wrong, for the caller to prefix with the setting's name.
 */
export function parseTagIndexConfig(value: unknown): TagIndexConfig {
  if (Array.isArray(value)) {
    const metrics = new Map<string, IndexedTags>();
    for (const [i, metric] of value.entries()) metrics.set(nonEmptyString(metric, `[${i}]`, 'a metric name'), 'all');
    // KairosDB puts the key `*` in its map and then indexes every tag of every metric, whatever else is listed.
    if (metrics.has('*')) return { everyMetric: true, metrics: new Map() };
    return { everyMetric: false, metrics };
  }
  if (typeof value !== 'object' || value === null) {
    throw new Error(
      `must be a JSON object from metric to a list of tags, or a JSON list of metrics (got ${JSON.stringify(value)})`,
    );
  }
  const metrics = new Map<string, IndexedTags>();
  for (const [metric, tags] of Object.entries(value)) {
    if (metric.length === 0) throw new Error('names an empty metric');
    if (!Array.isArray(tags))
      throw new Error(`must give metric ${JSON.stringify(metric)} a list of tags (got ${JSON.stringify(tags)})`);
    const names = tags.map((tag, i) => nonEmptyString(tag, `.${metric}[${i}]`, 'a tag name'));
    metrics.set(metric, names.length === 0 || names.includes('*') ? 'all' : new Set(names));
  }
  // KairosDB checks for a `*` key in either form: every tag of every metric, whatever its list says (35b3c5c6).
  if (metrics.has('*')) return { everyMetric: true, metrics: new Map() };
  return { everyMetric: false, metrics };
}

/** The tags indexed for a metric's new rows, or undefined when the metric is not indexed. */
export function indexedTagsOf(config: TagIndexConfig, metric: string): IndexedTags | undefined {
  if (config.everyMetric) return 'all';
  return config.metrics.get(metric);
}

/** The `tag_indexed_row_keys` rows of one series: one per indexed tag it has, all with the same hash. */
export interface TagIndexRows {
  /** `single_tag_pair` of each row: KairosDB's literal `name=value`, unescaped. */
  readonly pairs: readonly string[];
  /** `tag_collection_hash`: murmur3 over the indexed tags' names and values in sorted name order. */
  readonly hash: number;
}

/** KairosDB's `generateTagPairHashes`: undefined when the metric is not indexed or the series has no indexed tag. */
export function tagIndexRows(config: TagIndexConfig, key: Pick<RowKey, 'metric' | 'tags'>): TagIndexRows | undefined {
  const indexed = indexedTagsOf(config, key.metric);
  if (indexed === undefined) return undefined;
  const pairs: string[] = [];
  const hashed: string[] = [];
  // Java's SortedMap order: UTF-16 code units, JavaScript's default sort.
  for (const name of Object.keys(key.tags).sort()) {
    if (indexed !== 'all' && !indexed.has(name)) continue;
    const value = key.tags[name]!;
    pairs.push(tagPair(name, value));
    hashed.push(name, value);
  }
  return pairs.length === 0 ? undefined : { pairs, hash: murmur3TagHash(hashed) };
}

/**
 * KairosDB's `single_tag_pair`. Not escaped, so `a=b`+`c` and `a`+`b=c` share a partition; readers keep only the rows
 * whose tag map really has the tag and value.
 */
export function tagPair(name: string, value: string): string {
  return `${name}=${value}`;
}

/** True when the series has the tag with that value (an index row of a shared `single_tag_pair` may not). */
export function hasTag(tags: Tags, name: string, value: string): boolean {
  return Object.hasOwn(tags, name) && tags[name] === value;
}

/**
 * One line of the configuration, as the stores record since when it has been in force: `["*"]` for every metric,
 * `["m"]` for every tag of m, `["m", "t"]` for tag t of m. JSON keeps every metric and tag name apart from the others.
 */
export function coverageEntries(config: TagIndexConfig): string[] {
  if (config.everyMetric) return [JSON.stringify(['*'])];
  const entries: string[] = [];
  for (const [metric, tags] of config.metrics) {
    if (tags === 'all') entries.push(JSON.stringify([metric]));
    else for (const tag of [...tags].sort()) entries.push(JSON.stringify([metric, tag]));
  }
  return entries;
}

/** The metric a coverage entry is about, or undefined for every metric. */
export function entryMetric(entry: string): string | undefined {
  const parsed = JSON.parse(entry) as string[];
  return parsed.length === 1 && parsed[0] === '*' ? undefined : parsed[0];
}

/**
 * Which tags the index answers for completely, per metric and row period. A period is complete for an entry of the
 * configuration when it starts at or after the entry's `since`: the first row time all of whose series were written
 * with that entry in force (every writer of the keyspace indexing as configured). Older periods have series the index
 * never saw, so readers use row_keys there: KairosDB reads the empty index instead and finds nothing.
 */
export class TagIndexCoverage {
  private readonly every: number | undefined;
  private readonly allTags = new Map<string, number>();
  private readonly someTags = new Map<string, Map<string, number>>();

  /** `since`: entry (coverageEntries) → first complete row time; entries of the configuration only. */
  constructor(
    readonly config: TagIndexConfig,
    since: ReadonlyMap<string, number>,
  ) {
    let every: number | undefined;
    for (const entry of coverageEntries(config)) {
      const from = since.get(entry);
      if (from === undefined) continue;
      const [metric, tag] = JSON.parse(entry) as [string, string?];
      if (config.everyMetric) every = from;
      else if (tag === undefined) this.allTags.set(metric, from);
      else {
        let tags = this.someTags.get(metric);
        if (tags === undefined) this.someTags.set(metric, (tags = new Map()));
        tags.set(tag, from);
      }
    }
    this.every = every;
  }

  /** A configuration whose every entry covers every period (a store that indexed all it holds). */
  static complete(config: TagIndexConfig): TagIndexCoverage {
    return new TagIndexCoverage(
      config,
      new Map(coverageEntries(config).map((entry) => [entry, Number.MIN_SAFE_INTEGER])),
    );
  }

  /** The tags of `metric` whose index is complete at `rowTime`. */
  indexedTags(metric: string, rowTime: number): IndexedTags {
    if (this.every !== undefined && this.every <= rowTime) return 'all';
    const all = this.allTags.get(metric);
    if (all !== undefined && all <= rowTime) return 'all';
    const some = this.someTags.get(metric);
    if (some === undefined) return NO_TAGS;
    const tags = new Set<string>();
    for (const [tag, from] of some) if (from <= rowTime) tags.add(tag);
    return tags;
  }
}

function nonEmptyString(value: unknown, path: string, what: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new Error(`must have ${what} at ${path} (got ${JSON.stringify(value)})`);
  return value;
}
