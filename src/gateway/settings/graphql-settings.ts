/** GraphQL's limits, introspection and persisted operations. */
import { setting } from './setting.js';
import { integer, list, boolean } from './parsers.js';

export const GRAPHQL_SETTINGS = [
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
      'Accept only persisted operations (by sha256 hash) from requests without credentials: GraphQL text, and every REST request but version and health, need credentials ([Security](security.md))',
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
] as const;
