/**
 * The gateway's configuration as a type, and a setting: the environment variable, the key of Config it sets, its
 * default, its meaning (docs/configuration.md's table is held against it) and its parser, which names the variable and
 * the value when it refuses one.
 */
import type { LogFormat, LogLevel } from '../../lib/log.js';
import type { Consistency, ScanDecoder, TableName, WriteEncoder } from '../../store/cassandra/options.js';
import type { Scope } from '../../model/principal.js';
import type { TagIndexConfig } from '../../store/tag-index.js';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly store: 'embedded' | 'cassandra';
  readonly dataDir: string;
  readonly primarySourceName: string;
  readonly sourcesFile: string;
  readonly bigtableEmulatorHost: string;
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
  readonly cassandraIndexCacheEntries: number;
  readonly cassandraIndexCacheMs: number;
  readonly tagIndexedMetrics: TagIndexConfig;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** OTEL_TRACES_EXPORTER: where spans go (src/gateway/tracing.ts). */
  readonly tracesExporter: 'none' | 'otlp' | 'console';
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
  readonly promqlLookbackMs: number;
  readonly promqlMaxSamples: number;
  readonly influxMetricSeparator: string;
  readonly cacheMaxBytes: number;
  readonly cacheFreshnessMs: number;
  readonly cacheTtlMs: number;
  readonly livePollMs: number;
  readonly maxSubscriptions: number;
  readonly maxWebSockets: number;
  readonly webSocketMaxOperations: number;
  readonly rollups: 'on' | 'off';
  readonly rollupsPollMs: number;
  readonly rollupsMaxCatchUpPeriods: number;
  readonly rollupsLeaseMs: number;
  readonly rollupsDelayMs: number;
  readonly rollupsMinIntervalMs: number;
  readonly telnetPort: number;
  readonly telnetHost: string;
  readonly graphitePort: number;
  readonly graphiteHost: string;
  readonly graphiteHostTagPosition: number;
  readonly tcpIngestMaxConnections: number;
  readonly tcpIngestIdleTimeoutMs: number;
  readonly tcpIngestMaxLineBytes: number;
  readonly tcpIngestBatchPoints: number;
  readonly tcpIngestBatchMs: number;
}

export interface Setting<K extends keyof Config> {
  readonly env: string;
  readonly key: K;
  readonly default: string;
  readonly meaning: string;
  readonly parse: (raw: string, env: string) => Config[K];
}

export function setting<K extends keyof Config>(s: Setting<K>): Setting<K> {
  return s;
}
