/** What one write, query or request may cost, and how requests share the process: budgets, time limit, admission, compression, REST bodies, PromQL. */
import { setting } from './setting.js';
import { integer, boolean } from './parsers.js';

export const LIMIT_SETTINGS = [
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
    env: 'PROMQL_LOOKBACK_MS',
    key: 'promqlLookbackMs',
    default: '300000',
    meaning:
      "How far back a PromQL instant selector looks for a series' latest sample ([Prometheus API](prometheus.md), GraphQL's [`promql`](graphql.md#promql)), Prometheus's `--query.lookback-delta`",
    parse: (raw, env) => integer(raw, env, 1, 31_536_000_000),
  }),
  setting({
    env: 'PROMQL_MAX_SAMPLES',
    key: 'promqlMaxSamples',
    default: '5000000',
    meaning:
      "Most samples one PromQL query may hold (about 9 bytes each), Prometheus's `--query.max-samples`: each series a selector selects × the steps of the evaluation it is in (a subquery's own steps inside a subquery), plus the points a subquery keeps; over it the query fails with 422 and Prometheus's message",
    parse: (raw, env) => integer(raw, env, 1, 1_000_000_000),
  }),
] as const;
