/** Work shared between requests and run for them: the results cache, live queries and roll-ups. */
import { setting } from './setting.js';
import { integer, oneOf } from './parsers.js';

export const SHARING_SETTINGS = [
  setting({
    env: 'CACHE_MAX_BYTES',
    key: 'cacheMaxBytes',
    default: '134217728',
    meaning:
      'Memory of the [results cache](performance.md#the-results-cache) of aggregated buckets, in bytes; `0` turns it off',
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
      'How often live subscriptions (`liveSeries`, `livePromql`) re-run their query over the fresh edge, for points written other than through the gateway (writes through it push at once)',
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
    env: 'MAX_WEBSOCKETS',
    key: 'maxWebSockets',
    default: '1000',
    meaning:
      'Most GraphQL WebSockets (graphql-ws) open at once, over all clients; past it an upgrade is refused with OVERLOADED (503). Their subscriptions count against `MAX_SUBSCRIPTIONS` and `QUOTA_SUBSCRIPTIONS` with those over SSE',
    parse: (raw, env) => integer(raw, env, 0, 1_000_000),
  }),
  setting({
    env: 'WEBSOCKET_MAX_OPERATIONS',
    key: 'webSocketMaxOperations',
    default: '100',
    meaning:
      'Most operations one WebSocket runs at once (subscriptions, queries and mutations); past it an operation is refused with OVERLOADED',
    parse: (raw, env) => integer(raw, env, 1, 100_000),
  }),
  setting({
    env: 'ROLLUPS',
    key: 'rollups',
    default: 'on',
    meaning:
      'Run roll-up tasks (`/api/v1/rollups`, GraphQL `rollups`) in this gateway: `on` or `off`. Tasks are managed either way; with several gateways on one Cassandra each period of each task runs once, on one of those that have it on ([Roll-ups](rollups.md))',
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
] as const;
