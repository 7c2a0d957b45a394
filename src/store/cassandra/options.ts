// The Cassandra store's options: validated once at construction into normalised values, so no statement is ever
// built from anything but a checked keyspace name, replication map and per-table option suffix.
import type { RowTimeUnit } from '../store.js';
import { NO_TAG_INDEX, type TagIndexConfig } from '../tag-index.js';

export type Consistency = (typeof CONSISTENCIES)[number];

export const CONSISTENCIES = [
  'ANY',
  'ONE',
  'TWO',
  'THREE',
  'QUORUM',
  'ALL',
  'LOCAL_QUORUM',
  'EACH_QUORUM',
  'LOCAL_ONE',
] as const;

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

export interface CassandraStoreOptions {
  /** `host` or `host:port` (default port 9042). */
  readonly contactPoints: readonly string[];
  readonly localDataCenter: string;
  /** Default `kairosdb`, KairosDB's. */
  readonly keyspace?: string;
  /** The CQL map of CREATE KEYSPACE ... WITH REPLICATION = <this>; used only when the keyspace is missing. */
  readonly replication?: string;
  /** KairosDB's `table_create_with.<table>`: appended to CREATE TABLE of a missing table (e.g. `WITH compaction = {...}`). */
  readonly tableOptions?: Readonly<Partial<Record<TableName, string>>>;
  readonly username?: string;
  readonly password?: string;
  /** KairosDB's defaults: reads ONE, writes QUORUM. */
  readonly readConsistency?: Consistency;
  readonly writeConsistency?: Consistency;
  readonly tls?: boolean;
  /** Rows per page of reads that do not ask for their own page size (KairosDB: the driver default, 5000). */
  readonly fetchSize?: number;
  /** Requests in flight at once (one page, one write batch, one delete): KairosDB's simultaneous_cql_queries. */
  readonly concurrency?: number;
  /** Partition scans a query keeps started ahead of the one it reads (Store.readAhead); 0 turns it off. */
  readonly readAhead?: number;
  /** A request Cassandra does not answer within this fails with STORE_UNAVAILABLE. */
  readonly requestTimeoutMs?: number;
  /** Pause between background connection attempts while Cassandra is unreachable; a failing schema repair starts from it. */
  readonly reconnectDelayMs?: number;
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
  /** Where connection changes are reported; silent by default. */
  readonly log?: StoreLog;
}

export interface StoreLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ResolvedOptions {
  readonly contactPoints: readonly string[];
  readonly localDataCenter: string;
  readonly keyspace: string;
  readonly replication: string;
  readonly tableOptions: Readonly<Record<TableName, string>>;
  readonly credentials: { readonly username: string; readonly password: string } | undefined;
  readonly readConsistency: Consistency;
  readonly writeConsistency: Consistency;
  readonly tls: boolean;
  readonly fetchSize: number;
  readonly concurrency: number;
  readonly readAhead: number;
  readonly requestTimeoutMs: number;
  readonly reconnectDelayMs: number;
  readonly createSchema: boolean;
  readonly schemaCheckMs: number;
  readonly rowTimeUnit: RowTimeUnit;
  readonly rowWidth: number | undefined;
  readonly scanDecoder: ScanDecoder;
  readonly writeEncoder: WriteEncoder;
  readonly tagIndexedMetrics: TagIndexConfig;
  readonly log: StoreLog;
}

export const DEFAULT_KEYSPACE = 'kairosdb';
/** About what KairosDB 1.3 keeps in flight by its configuration (20 partition queries, 6 reader threads). */
export const DEFAULT_READ_AHEAD = 8;
export const DEFAULT_REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";
/** One small read of the node's own schema tables: a table dropped behind the gateway's back is found within this. */
export const DEFAULT_SCHEMA_CHECK_MS = 10_000;

export function resolveOptions(options: CassandraStoreOptions): ResolvedOptions {
  if (options.contactPoints.length === 0) throw new Error('Cassandra contact points must name at least one host');
  for (const point of options.contactPoints) check(contactPointProblem(point));
  if (options.localDataCenter.trim() === '') throw new Error('Cassandra local data centre must not be empty');
  const keyspace = options.keyspace ?? DEFAULT_KEYSPACE;
  check(keyspaceProblem(keyspace));
  const replication = (options.replication ?? DEFAULT_REPLICATION).trim();
  check(replicationProblem(replication));
  check(tableOptionsProblem(options.tableOptions ?? {}));
  const tableOptions = Object.fromEntries(
    TABLE_NAMES.map((t) => [t, (options.tableOptions?.[t] ?? '').trim()]),
  ) as Record<TableName, string>;
  const username = options.username ?? '';
  const password = options.password ?? '';
  if (username === '' && password !== '') throw new Error('Cassandra password is set but the user name is empty');
  return {
    contactPoints: [...options.contactPoints],
    localDataCenter: options.localDataCenter,
    keyspace,
    replication,
    tableOptions,
    credentials: username === '' ? undefined : { username, password },
    readConsistency: options.readConsistency ?? 'ONE',
    writeConsistency: options.writeConsistency ?? 'QUORUM',
    tls: options.tls ?? false,
    fetchSize: positive(options.fetchSize ?? 5000, 'fetch size'),
    concurrency: positive(options.concurrency ?? 20, 'concurrency'),
    readAhead: notNegative(options.readAhead ?? DEFAULT_READ_AHEAD, 'read-ahead'),
    requestTimeoutMs: positive(options.requestTimeoutMs ?? 12_000, 'request timeout'),
    reconnectDelayMs: positive(options.reconnectDelayMs ?? 1000, 'reconnect delay'),
    createSchema: options.createSchema ?? true,
    schemaCheckMs: notNegative(options.schemaCheckMs ?? DEFAULT_SCHEMA_CHECK_MS, 'schema check interval'),
    rowTimeUnit: options.rowTimeUnit ?? 'MILLISECONDS',
    rowWidth: options.rowWidth === undefined ? undefined : positive(options.rowWidth, 'row width'),
    scanDecoder: oneOf(options.scanDecoder ?? 'lean', SCAN_DECODERS, 'scan decoder'),
    writeEncoder: oneOf(options.writeEncoder ?? 'lean', WRITE_ENCODERS, 'write encoder'),
    tagIndexedMetrics: options.tagIndexedMetrics ?? NO_TAG_INDEX,
    log: options.log ?? SILENT,
  };
}

/** What is wrong with a contact point, or undefined; the configuration reports it under its variable's name. */
export function contactPointProblem(point: string): string | undefined {
  const ok = /^[^\s,:[\]]+(:\d{1,5})?$/.test(point) || /^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/.test(point);
  return ok ? undefined : `a contact point must be host or host:port (got ${JSON.stringify(point)})`;
}

export function keyspaceProblem(keyspace: string): string | undefined {
  // Unquoted, as KairosDB writes it; Cassandra folds unquoted names to lower case, so only lower case round-trips.
  return /^[a-z][a-z0-9_]{0,47}$/.test(keyspace)
    ? undefined
    : `the keyspace must be 1 to 48 lower-case letters, digits or _, starting with a letter (got ${JSON.stringify(keyspace)})`;
}

export function replicationProblem(replication: string): string | undefined {
  return /^\{[^;{}]*\}$/.test(replication)
    ? undefined
    : `replication must be one CQL map such as ${DEFAULT_REPLICATION} (got ${JSON.stringify(replication)})`;
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

function check(problem: string | undefined): void {
  if (problem !== undefined) throw new Error(`Cassandra store: ${problem}`);
}

function notNegative(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`Cassandra store: the ${what} must be a whole number from 0 (got ${value})`);
  return value;
}

function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`Cassandra store: the ${what} must be a positive integer (got ${value})`);
  return value;
}

const SILENT: StoreLog = { info: () => {}, warn: () => {} };
