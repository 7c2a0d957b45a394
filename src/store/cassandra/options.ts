// The Cassandra store's options: validated once at construction into normalised values, so no statement is ever
// built from anything but a checked keyspace name, replication map and per-table option suffix.
import type { RowTimeUnit } from '../store.js';

export type Consistency = (typeof CONSISTENCIES)[number];

export const CONSISTENCIES = ['ANY', 'ONE', 'TWO', 'THREE', 'QUORUM', 'ALL', 'LOCAL_QUORUM', 'EACH_QUORUM', 'LOCAL_ONE'] as const;

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
  /** A request Cassandra does not answer within this fails with STORE_UNAVAILABLE. */
  readonly requestTimeoutMs?: number;
  /** Pause between background connection attempts while Cassandra is unreachable. */
  readonly reconnectDelayMs?: number;
  /** Written to `spec` only when the keyspace has none, as KairosDB does (default MILLISECONDS, or LEGACY over old data). */
  readonly rowTimeUnit?: RowTimeUnit;
  /** Written to `spec` only when the keyspace has none (default 1814400000 ms, or 1814400 with unit SECONDS). */
  readonly rowWidth?: number;
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
  readonly requestTimeoutMs: number;
  readonly reconnectDelayMs: number;
  readonly rowTimeUnit: RowTimeUnit;
  readonly rowWidth: number | undefined;
  readonly log: StoreLog;
}

export const DEFAULT_KEYSPACE = 'kairosdb';
export const DEFAULT_REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

export function resolveOptions(options: CassandraStoreOptions): ResolvedOptions {
  if (options.contactPoints.length === 0) throw new Error('Cassandra contact points must name at least one host');
  for (const point of options.contactPoints) {
    if (!/^[^\s,:]+(:\d{1,5})?$/.test(point) && !/^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/.test(point)) {
      throw new Error(`Cassandra contact point must be host or host:port: ${JSON.stringify(point)}`);
    }
  }
  if (options.localDataCenter.trim() === '') throw new Error('Cassandra local data centre must not be empty');
  const keyspace = options.keyspace ?? DEFAULT_KEYSPACE;
  // Unquoted, as KairosDB writes it; Cassandra folds unquoted names to lower case, so only lower case round-trips.
  if (!/^[a-z][a-z0-9_]{0,47}$/.test(keyspace)) {
    throw new Error(`Cassandra keyspace must be 1-48 lower-case letters, digits or _ starting with a letter: ${JSON.stringify(keyspace)}`);
  }
  const replication = (options.replication ?? DEFAULT_REPLICATION).trim();
  if (!/^\{[^;{}]*\}$/.test(replication)) {
    throw new Error(`Cassandra replication must be one CQL map such as ${DEFAULT_REPLICATION}: ${JSON.stringify(replication)}`);
  }
  const tableOptions = Object.fromEntries(TABLE_NAMES.map((t) => [t, ''])) as Record<TableName, string>;
  for (const [table, suffix] of Object.entries(options.tableOptions ?? {})) {
    if (!(TABLE_NAMES as readonly string[]).includes(table)) {
      throw new Error(`Cassandra table options name an unknown table ${JSON.stringify(table)} (tables: ${TABLE_NAMES.join(', ')})`);
    }
    tableOptions[table as TableName] = checkTableOptions(table, suffix ?? '');
  }
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
    requestTimeoutMs: positive(options.requestTimeoutMs ?? 12_000, 'request timeout'),
    reconnectDelayMs: positive(options.reconnectDelayMs ?? 1000, 'reconnect delay'),
    rowTimeUnit: options.rowTimeUnit ?? 'MILLISECONDS',
    rowWidth: options.rowWidth === undefined ? undefined : positive(options.rowWidth, 'row width'),
    log: options.log ?? SILENT,
  };
}

function checkTableOptions(table: string, suffix: string): string {
  const text = suffix.trim();
  if (text === '') return '';
  if (!/^WITH\s/i.test(text) || text.includes(';')) {
    throw new Error(`Cassandra options of table ${table} must be one "WITH ..." clause: ${JSON.stringify(text)}`);
  }
  // Cassandra 4+ refuses COMPACT STORAGE (KairosDB issue #599), and a table made with it cannot be changed back.
  if (/COMPACT\s+STORAGE/i.test(text)) throw new Error(`Cassandra options of table ${table} must not use COMPACT STORAGE: ${JSON.stringify(text)}`);
  return text;
}

function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`Cassandra ${what} must be a positive integer: ${value}`);
  return value;
}

const SILENT: StoreLog = { info: () => {}, warn: () => {} };
