/**
 * Configuration: defaults, validation messages that name the variable and value, the table of docs/configuration.md,
 * and the real process refusing to start on a bad value.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS } from './config.js';

describe('loadConfig', () => {
  it('has documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      store: 'embedded',
      dataDir: './data',
      primarySourceName: 'kairosdb',
      sourcesFile: '',
      bigtableEmulatorHost: '',
      rowTimeUnit: 'MILLISECONDS',
      rowWidth: 0,
      cassandraContactPoints: ['127.0.0.1:9042'],
      cassandraLocalDc: 'datacenter1',
      cassandraKeyspace: 'kairosdb',
      cassandraReplication: "{'class': 'SimpleStrategy', 'replication_factor': 1}",
      cassandraTableOptions: {},
      cassandraCreateSchema: true,
      cassandraUsername: '',
      cassandraPassword: '',
      cassandraReadConsistency: 'ONE',
      cassandraWriteConsistency: 'QUORUM',
      cassandraTls: false,
      cassandraFetchSize: 5000,
      cassandraConcurrency: 20,
      cassandraReadAhead: 8,
      cassandraReadAheadPoints: 1_048_576,
      cassandraRequestTimeoutMs: 12_000,
      cassandraScanDecoder: 'lean',
      cassandraWriteEncoder: 'lean',
      cassandraIndexCacheEntries: 200_000,
      cassandraIndexCacheMs: 300_000,
      tagIndexedMetrics: { everyMetric: false, metrics: new Map() },
      logLevel: 'info',
      logFormat: 'auto',
      tracesExporter: 'none',
      seedDemo: true,
      maxWritePoints: 100_000,
      maxQuerySeries: 100_000,
      maxPointsRead: 100_000_000,
      maxQueryPoints: 1_000_000,
      maxRequestPointsRead: 100_000_000,
      maxRequestPoints: 1_000_000,
      maxResponseBytes: 67_108_864,
      queryTimeoutMs: 30_000,
      maxConcurrentRequests: 4,
      maxQueuedRequests: 32,
      compression: true,
      compressionMinBytes: 32_768,
      restMaxBodyBytes: 16_777_216,
      restTagsRowPeriods: 3,
      promqlLookbackMs: 300_000,
      promqlMaxSamples: 5_000_000,
      cacheMaxBytes: 134_217_728,
      cacheFreshnessMs: 60_000,
      cacheTtlMs: 600_000,
      livePollMs: 5000,
      maxSubscriptions: 1000,
      maxWebSockets: 1000,
      webSocketMaxOperations: 100,
      rollups: 'on',
      rollupsPollMs: 30_000,
      rollupsMaxCatchUpPeriods: 1000,
      rollupsLeaseMs: 600_000,
      rollupsDelayMs: 60_000,
      rollupsMinIntervalMs: 60_000,
      telnetPort: 0,
      telnetHost: '127.0.0.1',
      graphitePort: 0,
      graphiteHost: '127.0.0.1',
      graphiteHostTagPosition: 0,
      tcpIngestMaxConnections: 256,
      tcpIngestIdleTimeoutMs: 300_000,
      tcpIngestMaxLineBytes: 4096,
      tcpIngestBatchPoints: 5000,
      tcpIngestBatchMs: 200,
      graphqlMaxDepth: 12,
      graphqlMaxAliases: 500,
      graphqlMaxCost: 50_000,
      graphqlMaxTokens: 20_000,
      graphqlIntrospection: true,
      persistedOnly: false,
      trustedClientTokens: [],
      persistedOperationsFile: '',
      credentialsFile: '',
      anonymousScopes: 'auto',
      allowedHosts: 'auto',
      corsOrigins: [],
      quotaRequests: 32,
      quotaRunning: 'auto',
      quotaSubscriptions: 100,
      quotaPointsRead: 0,
      quotaPeriodMs: 60_000,
      quotaRollupTasks: 100,
      influxMetricSeparator: '.',
    });
  });

  it('reads the browser settings, origins as browsers send them', () => {
    expect(
      loadConfig({
        ALLOWED_HOSTS: 'kairograph.example, .corp.example',
        CORS_ORIGINS: 'https://Grafana.example:3000,http://localhost:3000',
      }),
    ).toMatchObject({
      allowedHosts: ['kairograph.example', '.corp.example'],
      corsOrigins: ['https://grafana.example:3000', 'http://localhost:3000'],
    });
    expect(loadConfig({ ALLOWED_HOSTS: '*', CORS_ORIGINS: '*' })).toMatchObject({
      allowedHosts: '*',
      corsOrigins: '*',
    });
    expect(() => loadConfig({ CORS_ORIGINS: 'https://grafana.example/' })).toThrow(
      'CORS_ORIGINS must be * or origins such as https://grafana.example:3000 (scheme, host and port only) separated by commas (got "https://grafana.example/")',
    );
    expect(() => loadConfig({ ALLOWED_HOSTS: 'evil.example:80' })).toThrow(
      'ALLOWED_HOSTS must be auto, *, or host names separated by commas (got "evil.example:80")',
    );
  });

  it('reads lists of tokens', () => {
    expect(loadConfig({ TRUSTED_CLIENT_TOKENS: ' grafana-1 , ci ,,' }).trustedClientTokens).toEqual([
      'grafana-1',
      'ci',
    ]);
  });

  it('reads the Cassandra settings', () => {
    expect(
      loadConfig({
        STORE: 'cassandra',
        CASSANDRA_CONTACT_POINTS: 'cass-1:9142, cass-2',
        CASSANDRA_TABLE_OPTIONS: '{"data_points":"WITH compaction = {\'class\': \'TimeWindowCompactionStrategy\'}"}',
        ROW_WIDTH: '3600000',
        CASSANDRA_SCAN_DECODER: 'driver',
        CASSANDRA_WRITE_ENCODER: 'driver',
        CASSANDRA_CREATE_SCHEMA: 'false',
        CASSANDRA_INDEX_CACHE_ENTRIES: '0',
        CASSANDRA_INDEX_CACHE_MS: '60000',
      }),
    ).toMatchObject({
      store: 'cassandra',
      cassandraContactPoints: ['cass-1:9142', 'cass-2'],
      cassandraTableOptions: { data_points: "WITH compaction = {'class': 'TimeWindowCompactionStrategy'}" },
      rowWidth: 3_600_000,
      cassandraScanDecoder: 'driver',
      cassandraWriteEncoder: 'driver',
      cassandraCreateSchema: false,
      cassandraIndexCacheEntries: 0,
      cassandraIndexCacheMs: 60_000,
    });
  });

  it("reads TAG_INDEXED_METRICS in KairosDB's forms", () => {
    const read = (raw: string) => loadConfig({ TAG_INDEXED_METRICS: raw }).tagIndexedMetrics;
    expect(read('{"cpu": ["host", "dc"], "mem": [], "disk": ["host", "*"]}')).toEqual({
      everyMetric: false,
      metrics: new Map<string, unknown>([
        ['cpu', new Set(['host', 'dc'])],
        ['mem', 'all'],
        ['disk', 'all'],
      ]),
    });
    expect(read('["cpu", "mem"]')).toEqual({
      everyMetric: false,
      metrics: new Map([
        ['cpu', 'all'],
        ['mem', 'all'],
      ]),
    });
    // KairosDB: a `*` among the metrics indexes every tag of every metric, whatever else is listed.
    expect(read('["*"]')).toEqual({ everyMetric: true, metrics: new Map() });
    expect(read('["cpu", "*"]')).toEqual({ everyMetric: true, metrics: new Map() });
    expect(read('{"*": ["host"], "cpu": ["dc"]}')).toEqual({ everyMetric: true, metrics: new Map() });
    expect(read('{}')).toEqual({ everyMetric: false, metrics: new Map() });
  });

  it('reads and trims values', () => {
    expect(loadConfig({ PORT: ' 8080 ', SEED_DEMO: 'false', LOG_LEVEL: 'debug' })).toMatchObject({
      port: 8080,
      seedDemo: false,
      logLevel: 'debug',
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ STORE: 'mysql' }, 'STORE must be one of embedded, cassandra (got "mysql")'],
    [
      { PRIMARY_SOURCE_NAME: 'main/db' },
      'PRIMARY_SOURCE_NAME must be 1 to 64 letters, digits, ".", "_" or "-" (got "main/db")',
    ],
    [{ ROW_TIME_UNIT: 'LEGACY' }, 'ROW_TIME_UNIT must be one of MILLISECONDS, SECONDS (got "LEGACY")'],
    [
      { CASSANDRA_CONTACT_POINTS: 'a:9042,b c' },
      'CASSANDRA_CONTACT_POINTS: a contact point must be host or host:port (got "b c")',
    ],
    [
      { CASSANDRA_KEYSPACE: 'Kairos' },
      'CASSANDRA_KEYSPACE: the keyspace must be 1 to 48 lower-case letters, digits or _, starting with a letter (got "Kairos")',
    ],
    [
      { CASSANDRA_KEYSPACE: 'k; DROP TABLE x' },
      'CASSANDRA_KEYSPACE: the keyspace must be 1 to 48 lower-case letters, digits or _, starting with a letter (got "k; DROP TABLE x")',
    ],
    [
      { CASSANDRA_REPLICATION: "{'class': 'SimpleStrategy'}; DROP" },
      `CASSANDRA_REPLICATION: replication must be one CQL map such as {'class': 'SimpleStrategy', 'replication_factor': 1} (got "{'class': 'SimpleStrategy'}; DROP")`,
    ],
    [
      { CASSANDRA_TABLE_OPTIONS: '{"data_points":"WITH COMPACT STORAGE"}' },
      'CASSANDRA_TABLE_OPTIONS: the options of table data_points must not use COMPACT STORAGE (got "WITH COMPACT STORAGE")',
    ],
    [
      { CASSANDRA_TABLE_OPTIONS: '{"points":"WITH comment = \'x\'"}' },
      'CASSANDRA_TABLE_OPTIONS: table options name an unknown table "points" (tables: data_points, row_key_index, string_index, row_keys, tag_indexed_row_keys, row_key_time_index, spec, service_index)',
    ],
    [
      { CASSANDRA_TABLE_OPTIONS: '[1]' },
      'CASSANDRA_TABLE_OPTIONS must be a JSON object from table name to options (got "[1]")',
    ],
    [
      { CASSANDRA_WRITE_CONSISTENCY: 'MOST' },
      'CASSANDRA_WRITE_CONSISTENCY must be one of ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE (got "MOST")',
    ],
    [{ CASSANDRA_SCAN_DECODER: 'rows' }, 'CASSANDRA_SCAN_DECODER must be one of lean, driver (got "rows")'],
    [{ CASSANDRA_WRITE_ENCODER: 'fast' }, 'CASSANDRA_WRITE_ENCODER must be one of lean, driver (got "fast")'],
    [
      { TAG_INDEXED_METRICS: 'cpu' },
      'TAG_INDEXED_METRICS must be a JSON object from metric to a list of tags, or a JSON list of metrics (got "cpu")',
    ],
    [
      { TAG_INDEXED_METRICS: '"cpu"' },
      'TAG_INDEXED_METRICS must be a JSON object from metric to a list of tags, or a JSON list of metrics (got "cpu")',
    ],
    [
      { TAG_INDEXED_METRICS: '{"cpu": "host"}' },
      'TAG_INDEXED_METRICS must give metric "cpu" a list of tags (got "host")',
    ],
    [{ TAG_INDEXED_METRICS: '{"cpu": ["host", 3]}' }, 'TAG_INDEXED_METRICS must have a tag name at .cpu[1] (got 3)'],
    [{ TAG_INDEXED_METRICS: '{"cpu": [""]}' }, 'TAG_INDEXED_METRICS must have a tag name at .cpu[0] (got "")'],
    [{ TAG_INDEXED_METRICS: '{"": ["host"]}' }, 'TAG_INDEXED_METRICS names an empty metric'],
    [{ TAG_INDEXED_METRICS: '["cpu", null]' }, 'TAG_INDEXED_METRICS must have a metric name at [1] (got null)'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [
      { ANONYMOUS_SCOPES: 'read,root' },
      'ANONYMOUS_SCOPES must be auto, none, or scopes separated by commas from read, write, delete, admin (got "read,root")',
    ],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT must be one of auto, json, pretty (got "xml")'],
    [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO must be true or false (got "maybe")'],
    [{ MAX_WRITE_POINTS: '0' }, 'MAX_WRITE_POINTS must be an integer from 1 to 10000000 (got "0")'],
    [{ ROLLUPS: 'yes' }, 'ROLLUPS must be one of on, off (got "yes")'],
    [{ CASSANDRA_CREATE_SCHEMA: 'no' }, 'CASSANDRA_CREATE_SCHEMA must be true or false (got "no")'],
    [
      { ROLLUPS_MAX_CATCH_UP_PERIODS: '0' },
      'ROLLUPS_MAX_CATCH_UP_PERIODS must be an integer from 1 to 1000000 (got "0")',
    ],
    [{ ROLLUPS_LEASE_MS: '10' }, 'ROLLUPS_LEASE_MS must be an integer from 1000 to 86400000 (got "10")'],
  ])('rejects %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

it('lists every setting with its default and meaning in docs/configuration.md, in order', () => {
  const page = readFileSync(fileURLToPath(new URL('../../docs/configuration.md', import.meta.url)), 'utf8');
  // Every row of the page's settings table, and the rows SETTINGS says it must have: the same, in the same order.
  const documented = page.split('\n').filter((line) => /^\| `[A-Z][A-Z0-9_]*` \|/.test(line));
  const expected = SETTINGS.map((setting) => {
    const shown = setting.default === '' ? '(none)' : `\`${setting.default}\``;
    return `| \`${setting.env}\` | ${shown} | ${setting.meaning} |`;
  });
  expect(documented).toEqual(expected);
});

it('stops start-up with a message that names the bad setting', () => {
  const main = fileURLToPath(new URL('../main.ts', import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
    env: { ...process.env, PORT: 'eighty' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toContain(
    'kairograph: invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")',
  );
});
