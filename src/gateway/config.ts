/**
 * The gateway's configuration: one table of settings read from the environment, validated at start. A bad value
 * stops start-up with a message that names the variable and the value. The README's table is checked against
 * SETTINGS by a test.
 */

import {
  CONSISTENCIES,
  DEFAULT_REPLICATION,
  SCAN_DECODERS,
  WRITE_ENCODERS,
  contactPointProblem,
  keyspaceProblem,
  replicationProblem,
  tableOptionsProblem,
  type Consistency,
  type ScanDecoder,
  type TableName,
  type WriteEncoder,
} from '../store/cassandra/options.js';
import { SCOPES, isScope, type Scope } from '../http/scopes.js';
import { SOURCE_NAME, SOURCE_NAME_RULE } from '../sources/sources.js';
import { parseTagIndexConfig, type TagIndexConfig } from '../store/tag-index.js';
import { ConfigError } from '../model/errors.js';
import type { LogFormat, LogLevel } from '../lib/log.js';

export type { LogFormat, LogLevel };

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly store: 'embedded' | 'cassandra';
  readonly dataDir: string;
  readonly primarySourceName: string;
  readonly sourcesFile: string;
  readonly rowTimeUnit: 'MILLISECONDS' | 'SECONDS';
  readonly rowWidth: number;
  readonly cassandraContactPoints: readonly string[];
  readonly cassandraLocalDc: string;
  readonly cassandraKeyspace: string;
  readonly cassandraReplication: string;
  readonly cassandraTableOptions: Readonly<Partial<Record<TableName, string>>>;
  readonly cassandraCreateSchema: boolean;
  readonly cassandraUsername: string;
  readonly cassandraPassword: string;
  readonly cassandraReadConsistency: Consistency;
  readonly cassandraWriteConsistency: Consistency;
  readonly cassandraTls: boolean;
  readonly cassandraFetchSize: number;
  readonly cassandraConcurrency: number;
  readonly cassandraReadAhead: number;
  readonly cassandraReadAheadPoints: number;
  readonly cassandraRequestTimeoutMs: number;
  readonly cassandraScanDecoder: ScanDecoder;
  readonly cassandraWriteEncoder: WriteEncoder;
  readonly tagIndexedMetrics: TagIndexConfig;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly seedDemo: boolean;
  readonly maxWritePoints: number;
  readonly maxQuerySeries: number;
  readonly maxPointsRead: number;
  readonly maxQueryPoints: number;
  readonly maxRequestPointsRead: number;
  readonly maxRequestPoints: number;
  readonly maxResponseBytes: number;
  readonly queryTimeoutMs: number;
  readonly maxConcurrentRequests: number;
  readonly maxQueuedRequests: number;
  readonly compression: boolean;
  readonly compressionMinBytes: number;
  readonly graphqlMaxDepth: number;
  readonly graphqlMaxAliases: number;
  readonly graphqlMaxCost: number;
  readonly graphqlMaxTokens: number;
  readonly graphqlIntrospection: boolean;
  readonly persistedOnly: boolean;
  readonly trustedClientTokens: readonly string[];
  readonly persistedOperationsFile: string;
  readonly credentialsFile: string;
  /** `auto`: every scope on a loopback HOST without credentials, none once credentials exist, else refuse to start. */
  readonly anonymousScopes: 'auto' | readonly Scope[];
  readonly allowedHosts: 'auto' | '*' | readonly string[];
  readonly corsOrigins: '*' | readonly string[];
  readonly quotaRequests: number;
  /** `auto`: one turn fewer than MAX_CONCURRENT_REQUESTS (at least one). */
  readonly quotaRunning: 'auto' | number;
  readonly quotaSubscriptions: number;
  readonly quotaPointsRead: number;
  readonly quotaPeriodMs: number;
  readonly quotaRollupTasks: number;
  readonly restMaxBodyBytes: number;
  readonly restTagsRowPeriods: number;
  readonly cacheMaxBytes: number;
  readonly cacheFreshnessMs: number;
  readonly cacheTtlMs: number;
  readonly livePollMs: number;
  readonly maxSubscriptions: number;
  readonly rollups: 'on' | 'off';
  readonly rollupsPollMs: number;
  readonly rollupsMaxCatchUpPeriods: number;
  readonly rollupsLeaseMs: number;
  readonly rollupsDelayMs: number;
  readonly rollupsMinIntervalMs: number;
}

export { ConfigError };

/** What a process prints before it exits 2 on a configuration it cannot run with; undefined for any other failure. */
export function invalidConfiguration(error: unknown): string | undefined {
  return error instanceof ConfigError ? `kairograph: invalid configuration: ${error.message}\n` : undefined;
}

interface Setting<K extends keyof Config> {
  readonly env: string;
  readonly key: K;
  readonly default: string;
  readonly meaning: string;
  readonly parse: (raw: string, env: string) => Config[K];
}

function setting<K extends keyof Config>(s: Setting<K>): Setting<K> {
  return s;
}

/** Every setting, in the order the README lists them. */
export const SETTINGS = [
  setting({
    env: 'PORT',
    key: 'port',
    default: '4000',
    meaning: 'HTTP port of GraphQL (`/graphql`), REST (`/api/v1`) and operations endpoints',
    parse: (raw, env) => integer(raw, env, 0, 65535),
  }),
  setting({
    env: 'HOST',
    key: 'host',
    default: '127.0.0.1',
    meaning: 'Address to listen on (`0.0.0.0` for every interface)',
    parse: (raw, env) => nonEmpty(raw, env),
  }),
  setting({
    env: 'STORE',
    key: 'store',
    default: 'embedded',
    meaning:
      "`embedded`: LMDB in `DATA_DIR`, no server needed; `cassandra`: KairosDB's keyspace on a Cassandra cluster (`CASSANDRA_*`)",
    parse: (raw, env) => oneOf(raw, env, ['embedded', 'cassandra'] as const),
  }),
  setting({
    env: 'DATA_DIR',
    key: 'dataDir',
    default: './data',
    meaning: 'Directory of the embedded store',
    parse: (raw, env) => nonEmpty(raw, env),
  }),
  setting({
    env: 'PRIMARY_SOURCE_NAME',
    key: 'primarySourceName',
    default: 'kairosdb',
    meaning:
      "Name of the primary source (the `STORE` above, with the `kairosdb` layout): what GraphQL's `source` argument takes for it, and what fields without one and the REST API use",
    parse: (raw, env) => sourceName(raw, env),
  }),
  setting({
    env: 'SOURCES_FILE',
    key: 'sourcesFile',
    default: '',
    meaning:
      'A JSON file of more sources, `{"sources": [...]}`, read and checked at start ([Sources](#sources)); empty for none',
    parse: (raw) => raw,
  }),
  setting({
    env: 'ROW_TIME_UNIT',
    key: 'rowTimeUnit',
    default: 'MILLISECONDS',
    meaning:
      "KairosDB's `row_time_unit`, written to the `spec` of a new store only (one over old KairosDB data gets LEGACY): MILLISECONDS or SECONDS",
    parse: (raw, env) => oneOf(raw, env, ['MILLISECONDS', 'SECONDS'] as const),
  }),
  setting({
    env: 'ROW_WIDTH',
    key: 'rowWidth',
    default: '0',
    meaning:
      "KairosDB's `row_width`, written to the `spec` of a new store only; `0` for KairosDB's 1814400000 ms (1814400 with SECONDS)",
    parse: (raw, env) => integer(raw, env, 0, 1_000_000_000_000),
  }),
  setting({
    env: 'CASSANDRA_CONTACT_POINTS',
    key: 'cassandraContactPoints',
    default: '127.0.0.1:9042',
    meaning: 'Comma-separated `host` or `host:port` (port 9042 when omitted)',
    parse: (raw, env) => contactPoints(raw, env),
  }),
  setting({
    env: 'CASSANDRA_LOCAL_DC',
    key: 'cassandraLocalDc',
    default: 'datacenter1',
    meaning: 'Data centre whose nodes serve requests (`SELECT data_center FROM system.local`)',
    parse: (raw, env) => nonEmpty(raw, env),
  }),
  setting({
    env: 'CASSANDRA_KEYSPACE',
    key: 'cassandraKeyspace',
    default: 'kairosdb',
    meaning:
      "Keyspace with KairosDB's tables; created with them when missing (`CASSANDRA_CREATE_SCHEMA`), never altered",
    parse: (raw, env) => checked(raw, env, keyspaceProblem(raw)),
  }),
  setting({
    env: 'CASSANDRA_REPLICATION',
    key: 'cassandraReplication',
    default: DEFAULT_REPLICATION,
    meaning: 'Replication of a keyspace the gateway creates',
    parse: (raw, env) => checked(raw, env, replicationProblem(raw)),
  }),
  setting({
    env: 'CASSANDRA_TABLE_OPTIONS',
    key: 'cassandraTableOptions',
    default: '{}',
    meaning:
      "KairosDB's `table_create_with`: JSON from table name to a `WITH ...` clause for tables the gateway creates, e.g. `{\"data_points\":\"WITH compaction = {'class': 'TimeWindowCompactionStrategy'}\"}`",
    parse: (raw, env) => tableOptions(raw, env),
  }),
  setting({
    env: 'CASSANDRA_CREATE_SCHEMA',
    key: 'cassandraCreateSchema',
    default: 'true',
    meaning:
      'Create the keyspace and tables that are missing, at start and when found gone or unserved later (a re-created one is logged, on `/ready` and `/metrics` as lost data); `false` where operators manage the schema: no DDL, 503 until it exists ([Cassandra](#cassandra))',
    parse: (raw, env) => boolean(raw, env),
  }),
  setting({
    env: 'CASSANDRA_USERNAME',
    key: 'cassandraUsername',
    default: '',
    meaning: 'User for PasswordAuthenticator; empty for none',
    parse: (raw) => raw,
  }),
  setting({
    env: 'CASSANDRA_PASSWORD',
    key: 'cassandraPassword',
    default: '',
    meaning: 'Password of `CASSANDRA_USERNAME`',
    parse: (raw) => raw,
  }),
  setting({
    env: 'CASSANDRA_READ_CONSISTENCY',
    key: 'cassandraReadConsistency',
    default: 'ONE',
    meaning: "Consistency level of reads (KairosDB's default)",
    parse: (raw, env) => oneOf(raw, env, CONSISTENCIES),
  }),
  setting({
    env: 'CASSANDRA_WRITE_CONSISTENCY',
    key: 'cassandraWriteConsistency',
    default: 'QUORUM',
    meaning: "Consistency level of writes and deletes (KairosDB's default)",
    parse: (raw, env) => oneOf(raw, env, CONSISTENCIES),
  }),
  setting({
    env: 'CASSANDRA_TLS',
    key: 'cassandraTls',
    default: 'false',
    meaning: 'TLS to Cassandra, verified against the system CAs (add one with `NODE_EXTRA_CA_CERTS`)',
    parse: (raw, env) => boolean(raw, env),
  }),
  setting({
    env: 'CASSANDRA_FETCH_SIZE',
    key: 'cassandraFetchSize',
    default: '5000',
    meaning: "Rows per page of a read (KairosDB's driver default)",
    parse: (raw, env) => integer(raw, env, 1, 1_000_000),
  }),
  setting({
    env: 'CASSANDRA_CONCURRENCY',
    key: 'cassandraConcurrency',
    default: '20',
    meaning: "Requests in flight to Cassandra at once, counted per page (KairosDB's `simultaneous_cql_queries`)",
    parse: (raw, env) => integer(raw, env, 1, 10_000),
  }),
  setting({
    env: 'CASSANDRA_READ_AHEAD',
    key: 'cassandraReadAhead',
    default: '8',
    meaning:
      'Partition scans a query keeps started ahead of the one it reads when it reads series one after another (order-free aggregators); 0 reads one at a time',
    parse: (raw, env) => integer(raw, env, 0, 1000),
  }),
  setting({
    env: 'CASSANDRA_READ_AHEAD_POINTS',
    key: 'cassandraReadAheadPoints',
    default: '1048576',
    meaning:
      'Points one request may hold read ahead of its queries (all of them together), about 16 bytes each; the scans started early read on while it has room',
    parse: (raw, env) => integer(raw, env, 0, 1_000_000_000),
  }),
  setting({
    env: 'CASSANDRA_REQUEST_TIMEOUT_MS',
    key: 'cassandraRequestTimeoutMs',
    default: '12000',
    meaning: 'A request Cassandra has not answered in this time fails with STORE_UNAVAILABLE',
    parse: (raw, env) => integer(raw, env, 1, 600_000),
  }),
  setting({
    env: 'CASSANDRA_SCAN_DECODER',
    key: 'cassandraScanDecoder',
    default: 'lean',
    meaning:
      "`lean`: `data_points` pages decoded straight from the protocol frame into slices (a hook into cassandra-driver 4.10.0's result parser, [architecture](docs/architecture.md#the-cassandra-store)); `driver`: through the driver's own rows, same answers at several times the CPU per point",
    parse: (raw, env) => oneOf(raw, env, SCAN_DECODERS),
  }),
  setting({
    env: 'CASSANDRA_WRITE_ENCODER',
    key: 'cassandraWriteEncoder',
    default: 'lean',
    meaning:
      "`lean`: each `data_points` batch written onto the wire straight from its cells, one buffer per batch (a hook into cassandra-driver 4.10.0's batch request writer, [architecture](docs/architecture.md#the-cassandra-store)); `driver`: a query object and encoded values per cell, the same bytes at about 2.5 times the Node CPU per point",
    parse: (raw, env) => oneOf(raw, env, WRITE_ENCODERS),
  }),
  setting({
    env: 'TAG_INDEXED_METRICS',
    key: 'tagIndexedMetrics',
    default: '{}',
    meaning:
      'KairosDB 1.3\'s `tag_indexed_row_key_lookup_metrics`, in its forms: JSON from metric to the tags to index (`[]` or `["*"]`: all of them), e.g. `{"system.cpu.usage":["host"]}`, or a JSON list of metrics (all tags; `["*"]`: every metric). Writes add `tag_indexed_row_keys` rows as KairosDB does, and exact tag filters read the most selective of them instead of every series of the row period ([tag index](#the-tag-index)); the embedded store keeps its own index of the same tags',
    parse: (raw, env) => tagIndexedMetrics(raw, env),
  }),
  setting({
    env: 'LOG_LEVEL',
    key: 'logLevel',
    default: 'info',
    meaning: 'fatal, error, warn, info, debug, trace or silent',
    parse: (raw, env) => oneOf(raw, env, ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
  }),
  setting({
    env: 'LOG_FORMAT',
    key: 'logFormat',
    default: 'auto',
    meaning:
      '`pretty`: one readable line per event; `json`: one JSON object per line (pino); `auto`: pretty when standard output is a terminal, JSON otherwise',
    parse: (raw, env) => oneOf(raw, env, ['auto', 'json', 'pretty'] as const),
  }),
  setting({
    env: 'SEED_DEMO',
    key: 'seedDemo',
    default: 'true',
    meaning:
      'Seed the demo dataset when the embedded store has no metrics, fill the gap since the last run at start and add a point to each demo series every 10 s while running (`false`: none of this; never into Cassandra)',
    parse: (raw, env) => boolean(raw, env),
  }),
  setting({
    env: 'MAX_WRITE_POINTS',
    key: 'maxWritePoints',
    default: '100000',
    meaning: 'Most points one write batch may carry',
    parse: (raw, env) => integer(raw, env, 1, 10_000_000),
  }),
  setting({
    env: 'MAX_QUERY_SERIES',
    key: 'maxQuerySeries',
    default: '100000',
    meaning: 'Most series one query may read',
    parse: (raw, env) => integer(raw, env, 1, 1_000_000_000),
  }),
  setting({
    env: 'MAX_POINTS_READ',
    key: 'maxPointsRead',
    default: '100000000',
    meaning: 'Most points one query may read from the store',
    parse: (raw, env) => integer(raw, env, 1, 1_000_000_000_000),
  }),
  setting({
    env: 'MAX_QUERY_POINTS',
    key: 'maxQueryPoints',
    default: '1000000',
    meaning: 'Most points one query may return',
    parse: (raw, env) => integer(raw, env, 1, 1_000_000_000),
  }),
  setting({
    env: 'MAX_REQUEST_POINTS_READ',
    key: 'maxRequestPointsRead',
    default: '100000000',
    meaning: 'Most points all queries of one request may read together (every GraphQL alias, every REST metric)',
    parse: (raw, env) => integer(raw, env, 1, 1_000_000_000_000),
  }),
  setting({
    env: 'MAX_REQUEST_POINTS',
    key: 'maxRequestPoints',
    default: '1000000',
    meaning:
      'Most points all queries of one request may return together, filled points included; with `MAX_RESPONSE_BYTES` it bounds the memory of a request',
    parse: (raw, env) => integer(raw, env, 1, 1_000_000_000),
  }),
  setting({
    env: 'MAX_RESPONSE_BYTES',
    key: 'maxResponseBytes',
    default: '67108864',
    meaning: 'Largest answer of one request, in bytes of JSON',
    parse: (raw, env) => integer(raw, env, 1024, 4_294_967_296),
  }),
  setting({
    env: 'QUERY_TIMEOUT_MS',
    key: 'queryTimeoutMs',
    default: '30000',
    meaning:
      'Time limit of one request: to arrive (headers and body; past it 408 and the connection is closed), then to run (past it QUERY_TIMEOUT, and its reads stop)',
    parse: (raw, env) => integer(raw, env, 1, 3_600_000),
  }),
  setting({
    env: 'MAX_CONCURRENT_REQUESTS',
    key: 'maxConcurrentRequests',
    default: '4',
    meaning:
      'Most requests that run queries at once (a GraphQL operation with `points`, `series` or `rows`, a REST query, whatever their number of aliases or metrics); others wait for a turn',
    parse: (raw, env) => integer(raw, env, 1, 10_000),
  }),
  setting({
    env: 'MAX_QUEUED_REQUESTS',
    key: 'maxQueuedRequests',
    default: '32',
    meaning:
      'Most requests that wait for a turn; past it, or when the wait would pass `QUERY_TIMEOUT_MS`, a request is refused at once with OVERLOADED (503, `Retry-After`)',
    parse: (raw, env) => integer(raw, env, 0, 1_000_000),
  }),
  setting({
    env: 'COMPRESSION',
    key: 'compression',
    default: 'true',
    meaning: "Compress GraphQL and REST answers (brotli or gzip, as the client's `Accept-Encoding` allows)",
    parse: (raw, env) => boolean(raw, env),
  }),
  setting({
    env: 'COMPRESSION_MIN_BYTES',
    key: 'compressionMinBytes',
    default: '32768',
    meaning: 'Smallest answer that is compressed, in bytes; smaller ones go as they are',
    parse: (raw, env) => integer(raw, env, 0, 4_294_967_296),
  }),
  setting({
    env: 'REST_MAX_BODY_BYTES',
    key: 'restMaxBodyBytes',
    default: '16777216',
    meaning: 'Largest REST request body, counted as received and again after gzip inflation; larger bodies get 413',
    parse: (raw, env) => integer(raw, env, 1024, 1_073_741_824),
  }),
  setting({
    env: 'REST_TAGS_ROW_PERIODS',
    key: 'restTagsRowPeriods',
    default: '3',
    meaning:
      'Row periods (3 weeks each by default) that `POST /api/v1/datapoints/query/tags` reads: the latest ones with data in the range',
    parse: (raw, env) => integer(raw, env, 1, 10_000),
  }),
  setting({
    env: 'CACHE_MAX_BYTES',
    key: 'cacheMaxBytes',
    default: '134217728',
    meaning:
      'Memory of the results cache of aggregated buckets ([architecture](docs/architecture.md#the-results-cache)), in bytes; `0` turns it off',
    parse: (raw, env) => integer(raw, env, 0, 68_719_476_736),
  }),
  setting({
    env: 'CACHE_FRESHNESS_MS',
    key: 'cacheFreshnessMs',
    default: '60000',
    meaning: 'Buckets that end less than this before the request are never cached: points usually arrive within it',
    parse: (raw, env) => integer(raw, env, 0, 31_536_000_000),
  }),
  setting({
    env: 'CACHE_TTL_MS',
    key: 'cacheTtlMs',
    default: '600000',
    meaning:
      'Cached buckets are read again from the store this long after they were cached, so points other writers add later (late or back-filled) show up',
    parse: (raw, env) => integer(raw, env, 1, 31_536_000_000),
  }),
  setting({
    env: 'LIVE_POLL_MS',
    key: 'livePollMs',
    default: '5000',
    meaning:
      'How often live subscriptions (`liveSeries`) re-run their query over the fresh edge, for points written other than through the gateway (writes through it push at once)',
    parse: (raw, env) => integer(raw, env, 10, 3_600_000),
  }),
  setting({
    env: 'MAX_SUBSCRIPTIONS',
    key: 'maxSubscriptions',
    default: '1000',
    meaning:
      'Most live subscriptions served at once, over all clients; past it a new one is refused with TOO_MANY_SUBSCRIPTIONS (503)',
    parse: (raw, env) => integer(raw, env, 0, 1_000_000),
  }),
  setting({
    env: 'ROLLUPS',
    key: 'rollups',
    default: 'on',
    meaning:
      'Run roll-up tasks (`/api/v1/rollups`, GraphQL `rollups`) in this gateway: `on` or `off`. Tasks are managed either way; with several gateways on one Cassandra each period of each task runs once, on one of those that have it on ([Roll-ups](#roll-ups))',
    parse: (raw, env) => oneOf(raw, env, ['on', 'off'] as const),
  }),
  setting({
    env: 'ROLLUPS_POLL_MS',
    key: 'rollupsPollMs',
    default: '30000',
    meaning:
      'How often the gateway reads roll-up tasks again from `service_index`, for tasks other gateways or KairosDB created, changed or deleted (its own changes apply at once)',
    parse: (raw, env) => integer(raw, env, 100, 86_400_000),
  }),
  setting({
    env: 'ROLLUPS_MAX_CATCH_UP_PERIODS',
    key: 'rollupsMaxCatchUpPeriods',
    default: '1000',
    meaning:
      "Most missed periods one roll-up task runs, oldest first, after the gateway was down; older missed periods are skipped and the task's status says which",
    parse: (raw, env) => integer(raw, env, 1, 1_000_000),
  }),
  setting({
    env: 'ROLLUPS_LEASE_MS',
    key: 'rollupsLeaseMs',
    default: '600000',
    meaning:
      "How long a gateway's claim on one period of a roll-up task lasts: another gateway runs the period after this if the first died; keep it above `QUERY_TIMEOUT_MS` times the task's queries",
    parse: (raw, env) => integer(raw, env, 1000, 86_400_000),
  }),
  setting({
    env: 'ROLLUPS_DELAY_MS',
    key: 'rollupsDelayMs',
    default: '60000',
    meaning: 'How long after a period ends its roll-up runs, so points that arrive a little late are in it',
    parse: (raw, env) => integer(raw, env, 0, 86_400_000),
  }),
  setting({
    env: 'ROLLUPS_MIN_INTERVAL_MS',
    key: 'rollupsMinIntervalMs',
    default: '60000',
    meaning:
      'Shortest `execution_interval` a roll-up task created or changed through the gateway may have (tasks KairosDB stored keep theirs)',
    parse: (raw, env) => integer(raw, env, 1000, 31_536_000_000),
  }),
  setting({
    env: 'GRAPHQL_MAX_DEPTH',
    key: 'graphqlMaxDepth',
    default: '12',
    meaning: 'Deepest selection a GraphQL operation may have (introspection excepted)',
    parse: (raw, env) => integer(raw, env, 1, 1000),
  }),
  setting({
    env: 'GRAPHQL_MAX_ALIASES',
    key: 'graphqlMaxAliases',
    default: '500',
    meaning: 'Most aliases in one operation: Grafana queries alias every field and stack many aliased roots',
    parse: (raw, env) => integer(raw, env, 1, 100_000),
  }),
  setting({
    env: 'GRAPHQL_MAX_COST',
    key: 'graphqlMaxCost',
    default: '50000',
    meaning: "Highest static cost of an operation (graphql-armor's estimate; point budgets bound the real work)",
    parse: (raw, env) => integer(raw, env, 1, 100_000_000),
  }),
  setting({
    env: 'GRAPHQL_MAX_TOKENS',
    key: 'graphqlMaxTokens',
    default: '20000',
    meaning: 'Most tokens in one operation document',
    parse: (raw, env) => integer(raw, env, 1, 10_000_000),
  }),
  setting({
    env: 'GRAPHQL_INTROSPECTION',
    key: 'graphqlIntrospection',
    default: 'true',
    meaning: "Serve introspection (Grafana's Save & test and GraphiQL use it)",
    parse: (raw, env) => boolean(raw, env),
  }),
  setting({
    env: 'PERSISTED_ONLY',
    key: 'persistedOnly',
    default: 'false',
    meaning:
      'Accept only persisted operations (by sha256 hash) from requests without credentials: GraphQL text, and every REST request but version and health, need credentials ([Security](#security))',
    parse: (raw, env) => boolean(raw, env),
  }),
  setting({
    env: 'TRUSTED_CLIENT_TOKENS',
    key: 'trustedClientTokens',
    default: '',
    meaning:
      'Deprecated (plain text): comma-separated tokens that, sent as `x-kairograph-token`, may send full query text when PERSISTED_ONLY is on, with the anonymous scopes only; use CREDENTIALS_FILE',
    parse: (raw) => list(raw),
  }),
  setting({
    env: 'PERSISTED_OPERATIONS_FILE',
    key: 'persistedOperationsFile',
    default: '',
    meaning: "A manifest (JSON: `sha256:<hash>` → document) to serve instead of the project's own `operations/`",
    parse: (raw) => raw,
  }),
  setting({
    env: 'CREDENTIALS_FILE',
    key: 'credentialsFile',
    default: '',
    meaning:
      'A JSON file of API tokens (each a SHA-256 digest: `kairograph hash-secret --generate`) and HTTP Basic users (each a scrypt hash: `kairograph hash-secret`), with their scopes and optionally their sources, read and checked at start ([Security](#security)); empty for none',
    parse: (raw) => raw,
  }),
  setting({
    env: 'ANONYMOUS_SCOPES',
    key: 'anonymousScopes',
    default: 'auto',
    meaning: `What requests without credentials may do: \`none\` or scopes separated by commas (${SCOPES.join(', ')}). \`auto\`: every scope when \`HOST\` is a loopback address and no credentials are configured, none when credentials are; on any other address the gateway refuses to start until one of the two is set`,
    parse: (raw, env) => anonymousScopes(raw, env),
  }),
  setting({
    env: 'ALLOWED_HOSTS',
    key: 'allowedHosts',
    default: 'auto',
    meaning:
      'Names the `Host` header may carry besides IP addresses and `localhost`, separated by commas (`.example.com` for a domain and its subdomains), or `*` for any; `auto`: none on a loopback `HOST` (a page whose name was rebound to 127.0.0.1 is refused), any on other addresses ([Security](#security))',
    parse: (raw, env) => allowedHosts(raw, env),
  }),
  setting({
    env: 'CORS_ORIGINS',
    key: 'corsOrigins',
    default: '',
    meaning:
      "Origins (`https://grafana.example:3000`) whose pages may call the gateway from a browser, with credentials, separated by commas; `*` for any page, without credentials; empty: only the gateway's own pages (the explorer, GraphiQL)",
    parse: (raw, env) => corsOrigins(raw, env),
  }),
  setting({
    env: 'QUOTA_REQUESTS',
    key: 'quotaRequests',
    default: '32',
    meaning:
      'Most requests one client (a principal; an address for requests without credentials) may have running queries or waiting for a turn; past it 429 `RATE_LIMITED`; `0` for no bound',
    parse: (raw, env) => integer(raw, env, 0, 1_000_000),
  }),
  setting({
    env: 'QUOTA_RUNNING',
    key: 'quotaRunning',
    default: 'auto',
    meaning:
      'Most of the `MAX_CONCURRENT_REQUESTS` turns one client may hold at once (its further requests wait); `auto`: one fewer than `MAX_CONCURRENT_REQUESTS` (at least 1), so one client never holds them all',
    parse: (raw, env) => (raw === 'auto' ? 'auto' : integer(raw, env, 1, 10_000)),
  }),
  setting({
    env: 'QUOTA_SUBSCRIPTIONS',
    key: 'quotaSubscriptions',
    default: '100',
    meaning: 'Most live subscriptions one client may hold; past it 429 `RATE_LIMITED`; `0` for no bound',
    parse: (raw, env) => integer(raw, env, 0, 1_000_000),
  }),
  setting({
    env: 'QUOTA_POINTS_READ',
    key: 'quotaPointsRead',
    default: '0',
    meaning:
      "Most points one client's requests may read per `QUOTA_PERIOD_MS`; a client past it gets 429 `RATE_LIMITED` until the period ends; `0` for no bound",
    parse: (raw, env) => integer(raw, env, 0, 1_000_000_000_000),
  }),
  setting({
    env: 'QUOTA_PERIOD_MS',
    key: 'quotaPeriodMs',
    default: '60000',
    meaning: 'The period of `QUOTA_POINTS_READ`',
    parse: (raw, env) => integer(raw, env, 1000, 86_400_000),
  }),
  setting({
    env: 'QUOTA_ROLLUP_TASKS',
    key: 'quotaRollupTasks',
    default: '100',
    meaning: 'Most roll-up tasks one client may own (create); past it 429 `RATE_LIMITED`; `0` for no bound',
    parse: (raw, env) => integer(raw, env, 0, 1_000_000),
  }),
] as const;

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const s of SETTINGS) {
    const raw = env[s.env];
    config[s.key] = s.parse(raw === undefined || raw.trim() === '' ? s.default : raw.trim(), s.env);
  }
  return config as unknown as Config;
}

function integer(raw: string, env: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${env} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

function sourceName(raw: string, env: string): string {
  if (!SOURCE_NAME.test(raw)) throw new ConfigError(`${env} ${SOURCE_NAME_RULE} (got ${JSON.stringify(raw)})`);
  return raw;
}

function nonEmpty(raw: string, env: string): string {
  if (raw.length === 0) throw new ConfigError(`${env} must not be empty`);
  return raw;
}

function oneOf<T extends string>(raw: string, env: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${env} must be one of ${allowed.join(', ')} (got ${JSON.stringify(raw)})`);
  }
  return raw as T;
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function anonymousScopes(raw: string, env: string): 'auto' | Scope[] {
  if (raw === 'auto') return 'auto';
  if (raw === 'none') return [];
  const scopes = list(raw);
  const unknown = scopes.find((scope) => !isScope(scope));
  if (unknown !== undefined || scopes.length === 0) {
    throw new ConfigError(
      `${env} must be auto, none, or scopes separated by commas from ${SCOPES.join(', ')} (got ${JSON.stringify(raw)})`,
    );
  }
  return [...new Set(scopes as Scope[])];
}

function allowedHosts(raw: string, env: string): 'auto' | '*' | string[] {
  if (raw === 'auto' || raw === '*') return raw;
  const names = list(raw);
  const bad = names.find(
    (name) => !/^\.?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(name),
  );
  if (bad !== undefined || names.length === 0)
    throw new ConfigError(
      `${env} must be auto, *, or host names separated by commas (got ${JSON.stringify(bad ?? raw)})`,
    );
  return names;
}

function corsOrigins(raw: string, env: string): '*' | string[] {
  if (raw === '*') return raw;
  return list(raw).map((origin) => {
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    // An origin is a scheme, a host and a port, as browsers send it in Origin: no path, no trailing slash, no user.
    const bare =
      url !== undefined &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      /^[a-z]+:\/\/[^/?#]+$/i.test(origin);
    if (!bare)
      throw new ConfigError(
        `${env} must be * or origins such as https://grafana.example:3000 (scheme, host and port only) separated by commas (got ${JSON.stringify(origin)})`,
      );
    return url.origin;
  });
}

function boolean(raw: string, env: string): boolean {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${env} must be true or false (got ${JSON.stringify(raw)})`);
}

function checked(raw: string, env: string, problem: string | undefined): string {
  if (problem !== undefined) throw new ConfigError(`${env}: ${problem}`);
  return raw;
}

function contactPoints(raw: string, env: string): string[] {
  const points = raw.split(',').map((p) => p.trim());
  for (const point of points) checked(point, env, contactPointProblem(point));
  return points;
}

function tableOptions(raw: string, env: string): Partial<Record<TableName, string>> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${env} must be a JSON object from table name to options (got ${JSON.stringify(raw)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${env} must be a JSON object from table name to options (got ${JSON.stringify(raw)})`);
  }
  checked(raw, env, tableOptionsProblem(value as Record<string, unknown>));
  return value as Partial<Record<TableName, string>>;
}

function tagIndexedMetrics(raw: string, env: string): TagIndexConfig {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      `${env} must be a JSON object from metric to a list of tags, or a JSON list of metrics (got ${JSON.stringify(raw)})`,
    );
  }
  try {
    return parseTagIndexConfig(value);
  } catch (error) {
    throw new ConfigError(`${env} ${(error as Error).message}`);
  }
}
