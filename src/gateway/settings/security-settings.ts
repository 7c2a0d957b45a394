/** Who may do what, from where, and how much: credentials, anonymous scopes, browsers, quotas. */
import { setting } from './setting.js';
import { integer, anonymousScopes, allowedHosts, corsOrigins } from './parsers.js';
import { SCOPES } from '../../model/principal.js';

export const SECURITY_SETTINGS = [
  setting({
    env: 'CREDENTIALS_FILE',
    key: 'credentialsFile',
    default: '',
    meaning:
      'A JSON file of API tokens (each a SHA-256 digest: `kairograph hash-secret --generate`) and HTTP Basic users (each a scrypt hash: `kairograph hash-secret`), with their scopes and optionally their sources, read and checked at start ([Security](security.md)); empty for none',
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
      'Names the `Host` header may carry besides IP addresses and `localhost`, separated by commas (`.example.com` for a domain and its subdomains), or `*` for any; `auto`: none on a loopback `HOST` (a page whose name was rebound to 127.0.0.1 is refused), any on other addresses ([Security](security.md))',
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
