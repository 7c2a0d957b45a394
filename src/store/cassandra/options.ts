// The Cassandra store's options: a connection's (cassandra-client/connection-options.ts) and those of KairosDB's
// keyspace, validated once at construction into normalised values, so no statement is ever built from anything but a
// checked keyspace name, replication map and per-table option suffix.
import {
  check,
  notNegative,
  positive,
  resolveConnection,
  type ConnectionOptions,
  type ResolvedConnection,
} from '../cassandra-client/connection-options.js';
import type { RowTimeUnit } from '../store.js';
import { NO_TAG_INDEX, type TagIndexConfig } from '../tag-index.js';

export {
  CONSISTENCIES,
  DEFAULT_REPLICATION,
  contactPointProblem,
  keyspaceProblem,
  replicationProblem,
  type Consistency,
} from '../cassandra-client/connection-options.js';

/** KairosDB's tables, in the order ClusterConnection creates them. */
export const TABLE_NAMES = [
  'data_points',
  'row_key_index',
  'string_index',
  'row_keys',
  'tag_indexed_row_keys',
  'row_key_time_index',
  'spec',
  'service_index',
] as const;

export type TableName = (typeof TABLE_NAMES)[number];

/** How data_points scan pages are decoded: `lean` into slices from the frame's bytes (lean-page-hook.ts), `driver` through its Row objects. */
export type ScanDecoder = (typeof SCAN_DECODERS)[number];

export const SCAN_DECODERS = ['lean', 'driver'] as const;

/** How data_points batches are encoded: `lean` straight from a partition's cells (lean-batch-hook.ts), `driver` as a query per cell. */
export type WriteEncoder = (typeof WRITE_ENCODERS)[number];

export const WRITE_ENCODERS = ['lean', 'driver'] as const;

export interface CassandraStoreOptions extends ConnectionOptions {
  /** KairosDB's `table_create_with.<table>`: appended to CREATE TABLE of a missing table (e.g. `WITH compaction = {...}`). */
  readonly tableOptions?: Readonly<Partial<Record<TableName, string>>>;
  /**
   * Create the keyspace and tables that are missing, at start and when they are found gone later (default true).
   * False where operators manage the schema: the store then sends no DDL and waits, answering 503, until they exist.
   */
  readonly createSchema?: boolean;
  /**
   * How often the connected store reads the node's catalog of the keyspace, to find a dropped or re-created table
   * before a request does (default 10 s; 0: never, only failing requests find it).
   */
  readonly schemaCheckMs?: number;
  /** Written to `spec` only when the keyspace has none, as KairosDB does (default MILLISECONDS, or LEGACY over old data). */
  readonly rowTimeUnit?: RowTimeUnit;
  /** Written to `spec` only when the keyspace has none (default 1814400000 ms, or 1814400 with unit SECONDS). */
  readonly rowWidth?: number;
  /** Default `lean`; `driver` is the driver's stock decoding, the reference the lean decoder is tested against. */
  readonly scanDecoder?: ScanDecoder;
  /** Default `lean`; `driver` is the driver's stock batch encoding, the reference the lean encoder is tested against. */
  readonly writeEncoder?: WriteEncoder;
  /**
   * KairosDB's `tag_indexed_row_key_lookup_metrics` (TAG_INDEXED_METRICS): writes add tag_indexed_row_keys rows for
   * these tags and reads use them where complete. Default none.
   */
  readonly tagIndexedMetrics?: TagIndexConfig;
  /**
   * Index rows a write remembers having written, to skip them in later writes as KairosDB does (default 200,000; 0:
   * every write sends all of its index rows).
   */
  readonly indexCacheEntries?: number;
  /** How long a remembered index row is trusted: another gateway's delete of it is seen after this (default 5 min). */
  readonly indexCacheMs?: number;
}

export interface ResolvedOptions extends ResolvedConnection {
  readonly tableOptions: Readonly<Record<TableName, string>>;
  readonly createSchema: boolean;
  readonly schemaCheckMs: number;
  readonly rowTimeUnit: RowTimeUnit;
  readonly rowWidth: number | undefined;
  readonly scanDecoder: ScanDecoder;
  readonly writeEncoder: WriteEncoder;
  readonly tagIndexedMetrics: TagIndexConfig;
  readonly indexCacheEntries: number;
  readonly indexCacheMs: number;
}

/** Some 150 bytes an entry: about 30 MB for as many series, each written again once they are forgotten. */
const DEFAULT_INDEX_CACHE_ENTRIES = 200_000;
/** Every series' index rows written again every five minutes: a small share of what writes send. */
const DEFAULT_INDEX_CACHE_MS = 300_000;

/** One small read of the node's own schema tables: a table dropped behind the gateway's back is found within this. */
const DEFAULT_SCHEMA_CHECK_MS = 10_000;

export function resolveOptions(options: CassandraStoreOptions): ResolvedOptions {
  const connection = resolveConnection(options, () => check(tableOptionsProblem(options.tableOptions ?? {})));
  const tableOptions = Object.fromEntries(
    TABLE_NAMES.map((t) => [t, (options.tableOptions?.[t] ?? '').trim()]),
  ) as Record<TableName, string>;
  return {
    ...connection,
    tableOptions,
    createSchema: options.createSchema ?? true,
    schemaCheckMs: notNegative(options.schemaCheckMs ?? DEFAULT_SCHEMA_CHECK_MS, 'schema check interval'),
    rowTimeUnit: options.rowTimeUnit ?? 'MILLISECONDS',
    rowWidth: options.rowWidth === undefined ? undefined : positive(options.rowWidth, 'row width'),
    scanDecoder: oneOf(options.scanDecoder ?? 'lean', SCAN_DECODERS, 'scan decoder'),
    writeEncoder: oneOf(options.writeEncoder ?? 'lean', WRITE_ENCODERS, 'write encoder'),
    tagIndexedMetrics: options.tagIndexedMetrics ?? NO_TAG_INDEX,
    indexCacheEntries: notNegative(options.indexCacheEntries ?? DEFAULT_INDEX_CACHE_ENTRIES, 'index cache size'),
    indexCacheMs: notNegative(options.indexCacheMs ?? DEFAULT_INDEX_CACHE_MS, 'index cache age'),
  };
}

export function tableOptionsProblem(options: Readonly<Record<string, unknown>>): string | undefined {
  for (const [table, value] of Object.entries(options)) {
    if (!(TABLE_NAMES as readonly string[]).includes(table))
      return `table options name an unknown table ${JSON.stringify(table)} (tables: ${TABLE_NAMES.join(', ')})`;
    if (typeof value !== 'string')
      return `the options of table ${table} must be a string (got ${JSON.stringify(value)})`;
    const text = value.trim();
    if (text === '') continue;
    if (!/^WITH\s/i.test(text) || text.includes(';'))
      return `the options of table ${table} must be one "WITH ..." clause (got ${JSON.stringify(text)})`;
    // Cassandra 4+ refuses COMPACT STORAGE (KairosDB issue #599), and a table made with it cannot be changed back.
    if (/COMPACT\s+STORAGE/i.test(text))
      return `the options of table ${table} must not use COMPACT STORAGE (got ${JSON.stringify(text)})`;
  }
  return undefined;
}

function oneOf<T extends string>(value: T, allowed: readonly T[], what: string): T {
  if (!allowed.includes(value))
    throw new Error(`Cassandra store: the ${what} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}
