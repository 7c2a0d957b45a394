/** The Cassandra store: where it is, how the gateway reads and writes it, and KairosDB's tag index. */
import { setting } from './setting.js';
import {
  integer,
  nonEmpty,
  oneOf,
  boolean,
  checked,
  contactPoints,
  tableOptions,
  tagIndexedMetrics,
} from './parsers.js';
import {
  DEFAULT_REPLICATION,
  CONSISTENCIES,
  SCAN_DECODERS,
  WRITE_ENCODERS,
  keyspaceProblem,
  replicationProblem,
} from '../../store/cassandra/options.js';

export const CASSANDRA_SETTINGS = [
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
      'Create the keyspace and tables that are missing, at start and when found gone or unserved later (a re-created one is logged, on `/ready` and `/metrics` as lost data); `false` where operators manage the schema: no DDL, 503 until it exists ([Cassandra](cassandra.md))',
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
      "`lean`: `data_points` pages decoded straight from the protocol frame into slices (a hook into cassandra-driver 4.10.0's result parser, [architecture](architecture.md#the-cassandra-store)); `driver`: through the driver's own rows, same answers at several times the CPU per point",
    parse: (raw, env) => oneOf(raw, env, SCAN_DECODERS),
  }),
  setting({
    env: 'CASSANDRA_WRITE_ENCODER',
    key: 'cassandraWriteEncoder',
    default: 'lean',
    meaning:
      "`lean`: each `data_points` batch written onto the wire straight from its cells, one buffer per batch (a hook into cassandra-driver 4.10.0's batch request writer, [architecture](architecture.md#the-cassandra-store)); `driver`: a query object and encoded values per cell, the same bytes at about 2.5 times the Node CPU per point",
    parse: (raw, env) => oneOf(raw, env, WRITE_ENCODERS),
  }),
  setting({
    env: 'CASSANDRA_INDEX_CACHE_ENTRIES',
    key: 'cassandraIndexCacheEntries',
    default: '200000',
    meaning:
      "Index rows (`row_keys`, `tag_indexed_row_keys`, `row_key_time_index`, `string_index`) the gateway remembers having written, so that later writes skip them as KairosDB's row key cache does; about 150 bytes each. Above the number of series written within `CASSANDRA_INDEX_CACHE_MS`, or some are written again each time; 0: every write sends all of its index rows ([Cassandra](cassandra.md#reads-writes-and-deletes))",
    parse: (raw, env) => integer(raw, env, 0, 100_000_000),
  }),
  setting({
    env: 'CASSANDRA_INDEX_CACHE_MS',
    key: 'cassandraIndexCacheMs',
    default: '300000',
    meaning:
      "How long a remembered index row is trusted before a write sends it again: a series another gateway (or KairosDB) deleted is indexed again by a write this long after the row was remembered. A row with a TTL is forgotten a minute before it can expire, and this gateway's deletes and schema repairs forget theirs at once",
    parse: (raw, env) => integer(raw, env, 0, 86_400_000),
  }),
  setting({
    env: 'TAG_INDEXED_METRICS',
    key: 'tagIndexedMetrics',
    default: '{}',
    meaning:
      'KairosDB 1.3\'s `tag_indexed_row_key_lookup_metrics`, in its forms: JSON from metric to the tags to index (`[]` or `["*"]`: all of them), e.g. `{"system.cpu.usage":["host"]}`, or a JSON list of metrics (all tags; `["*"]`: every metric). Writes add `tag_indexed_row_keys` rows as KairosDB does, and exact tag filters read the most selective of them instead of every series of the row period ([tag index](tag-index.md)); the embedded store keeps its own index of the same tags',
    parse: (raw, env) => tagIndexedMetrics(raw, env),
  }),
] as const;
