/**
 * What every connection to Cassandra takes, whatever tables it reads (KairosDB's store, Heroic's table, a user's
 * table): where, as whom, at which consistency, with which limits. Validated once into normalised values.
 */

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

export interface ConnectionOptions {
  /** `host` or `host:port` (default port 9042). */
  readonly contactPoints: readonly string[];
  readonly localDataCenter: string;
  /** Default `kairosdb`, KairosDB's. */
  readonly keyspace?: string;
  /** The CQL map of CREATE KEYSPACE ... WITH REPLICATION = <this>; used only when the keyspace is missing. */
  readonly replication?: string;
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
  /** Where connection changes are reported; silent by default. */
  readonly log?: StoreLog;
}

/** What every connection takes beside its place (contact points, data centre, keyspace): the CASSANDRA_* settings. */
export type ConnectionSettings = Pick<
  ConnectionOptions,
  | 'replication'
  | 'username'
  | 'password'
  | 'readConsistency'
  | 'writeConsistency'
  | 'tls'
  | 'fetchSize'
  | 'concurrency'
  | 'readAhead'
  | 'requestTimeoutMs'
>;

/**
 * How a layout over a Cassandra table of its own connects (Heroic's, a user's): the CASSANDRA_* settings, and whether
 * pages it can read from the frame's bytes are read so (lean-page-hook.ts; CASSANDRA_SCAN_DECODER=lean).
 */
export interface ClientSettings {
  readonly connection: ConnectionSettings;
  readonly leanPages: boolean;
}

interface StoreLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ResolvedConnection {
  readonly contactPoints: readonly string[];
  readonly localDataCenter: string;
  readonly keyspace: string;
  readonly replication: string;
  readonly credentials: { readonly username: string; readonly password: string } | undefined;
  readonly readConsistency: Consistency;
  readonly writeConsistency: Consistency;
  readonly tls: boolean;
  readonly fetchSize: number;
  readonly concurrency: number;
  readonly readAhead: number;
  readonly requestTimeoutMs: number;
  readonly reconnectDelayMs: number;
  readonly log: StoreLog;
}

const DEFAULT_KEYSPACE = 'kairosdb';
/** About what KairosDB 1.3 keeps in flight by its configuration (20 partition queries, 6 reader threads). */
const DEFAULT_READ_AHEAD = 8;
export const DEFAULT_REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

/** `checkMore` checks what a caller adds to the connection, where the store always checked it: after the replication. */
export function resolveConnection(options: ConnectionOptions, checkMore?: () => void): ResolvedConnection {
  if (options.contactPoints.length === 0) throw new Error('Cassandra contact points must name at least one host');
  for (const point of options.contactPoints) check(contactPointProblem(point));
  if (options.localDataCenter.trim() === '') throw new Error('Cassandra local data centre must not be empty');
  const keyspace = options.keyspace ?? DEFAULT_KEYSPACE;
  check(keyspaceProblem(keyspace));
  const replication = (options.replication ?? DEFAULT_REPLICATION).trim();
  check(replicationProblem(replication));
  checkMore?.();
  const username = options.username ?? '';
  const password = options.password ?? '';
  if (username === '' && password !== '') throw new Error('Cassandra password is set but the user name is empty');
  return {
    contactPoints: [...options.contactPoints],
    localDataCenter: options.localDataCenter,
    keyspace,
    replication,
    credentials: username === '' ? undefined : { username, password },
    readConsistency: options.readConsistency ?? 'ONE',
    writeConsistency: options.writeConsistency ?? 'QUORUM',
    tls: options.tls ?? false,
    fetchSize: positive(options.fetchSize ?? 5000, 'fetch size'),
    concurrency: positive(options.concurrency ?? 20, 'concurrency'),
    readAhead: notNegative(options.readAhead ?? DEFAULT_READ_AHEAD, 'read-ahead'),
    requestTimeoutMs: positive(options.requestTimeoutMs ?? 12_000, 'request timeout'),
    reconnectDelayMs: positive(options.reconnectDelayMs ?? 1000, 'reconnect delay'),
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

/** Throws a problem found by one of the checks above, in the words every Cassandra setting fails with. */
export function check(problem: string | undefined): void {
  if (problem !== undefined) throw new Error(`Cassandra store: ${problem}`);
}

export function notNegative(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`Cassandra store: the ${what} must be a whole number from 0 (got ${value})`);
  return value;
}

export function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`Cassandra store: the ${what} must be a positive integer (got ${value})`);
  return value;
}

const SILENT: StoreLog = { info: () => {}, warn: () => {} };
