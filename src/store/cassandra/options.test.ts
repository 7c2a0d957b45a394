/** The Cassandra store's options: defaults, and refusals that name the bad value before anything reaches CQL text. */
import { describe, expect, it } from 'vitest';
import { resolveOptions, type CassandraStoreOptions } from './options.js';

const base: CassandraStoreOptions = { contactPoints: ['127.0.0.1'], localDataCenter: 'datacenter1' };

describe('resolveOptions', () => {
  it("defaults to KairosDB's keyspace, replication, consistency levels, fetch size and concurrency", () => {
    const { log, ...resolved } = resolveOptions(base);
    expect(resolved).toEqual({
      contactPoints: ['127.0.0.1'],
      localDataCenter: 'datacenter1',
      keyspace: 'kairosdb',
      replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}",
      tableOptions: {
        data_points: '',
        row_key_index: '',
        string_index: '',
        row_keys: '',
        tag_indexed_row_keys: '',
        row_key_time_index: '',
        spec: '',
        service_index: '',
      },
      credentials: undefined,
      readConsistency: 'ONE',
      writeConsistency: 'QUORUM',
      tls: false,
      fetchSize: 5000,
      concurrency: 20,
      readAhead: 8,
      requestTimeoutMs: 12_000,
      reconnectDelayMs: 1000,
      createSchema: true,
      schemaCheckMs: 10_000,
      rowTimeUnit: 'MILLISECONDS',
      rowWidth: undefined,
      scanDecoder: 'lean',
      writeEncoder: 'lean',
      tagIndexedMetrics: { everyMetric: false, metrics: new Map() },
      indexCacheEntries: 200_000,
      indexCacheMs: 300_000,
    });
    expect(typeof log.warn).toBe('function');
  });

  it('keeps credentials and per-table options', () => {
    const resolved = resolveOptions({
      ...base,
      username: 'kairos',
      password: 'secret',
      tableOptions: { data_points: " WITH compaction = {'class': 'TimeWindowCompactionStrategy'} " },
    });
    expect(resolved.credentials).toEqual({ username: 'kairos', password: 'secret' });
    expect(resolved.tableOptions.data_points).toBe("WITH compaction = {'class': 'TimeWindowCompactionStrategy'}");
  });

  it.each<[Partial<CassandraStoreOptions>, string]>([
    [{ contactPoints: [] }, 'Cassandra contact points must name at least one host'],
    [{ contactPoints: ['a b'] }, 'Cassandra store: a contact point must be host or host:port (got "a b")'],
    [{ localDataCenter: ' ' }, 'Cassandra local data centre must not be empty'],
    [
      { keyspace: 'kairos-db' },
      'Cassandra store: the keyspace must be 1 to 48 lower-case letters, digits or _, starting with a letter (got "kairos-db")',
    ],
    [
      { keyspace: 'x;drop' },
      'Cassandra store: the keyspace must be 1 to 48 lower-case letters, digits or _, starting with a letter (got "x;drop")',
    ],
    [
      { replication: "{'class': 'SimpleStrategy'}; DROP KEYSPACE k" },
      `Cassandra store: replication must be one CQL map such as {'class': 'SimpleStrategy', 'replication_factor': 1} (got "{'class': 'SimpleStrategy'}; DROP KEYSPACE k")`,
    ],
    [
      { tableOptions: { data_points: 'WITH COMPACT STORAGE' } },
      'Cassandra store: the options of table data_points must not use COMPACT STORAGE (got "WITH COMPACT STORAGE")',
    ],
    [
      { tableOptions: { spec: "comment = 'x'" } },
      `Cassandra store: the options of table spec must be one "WITH ..." clause (got "comment = 'x'")`,
    ],
    [{ password: 'secret' }, 'Cassandra password is set but the user name is empty'],
    [{ fetchSize: 0 }, 'Cassandra store: the fetch size must be a positive integer (got 0)'],
    [{ concurrency: 1.5 }, 'Cassandra store: the concurrency must be a positive integer (got 1.5)'],
    [{ scanDecoder: 'rows' as 'lean' }, 'Cassandra store: the scan decoder must be one of lean, driver (got "rows")'],
    [{ writeEncoder: 'fast' as 'lean' }, 'Cassandra store: the write encoder must be one of lean, driver (got "fast")'],
    [{ schemaCheckMs: -1 }, 'Cassandra store: the schema check interval must be a whole number from 0 (got -1)'],
    [{ indexCacheEntries: 1.5 }, 'Cassandra store: the index cache size must be a whole number from 0 (got 1.5)'],
    [{ indexCacheMs: -1 }, 'Cassandra store: the index cache age must be a whole number from 0 (got -1)'],
  ])('refuses %o', (options, message) => {
    expect(() => resolveOptions({ ...base, ...options })).toThrow(new Error(message));
  });
});
