/**
 * The GraphQL dashboard suite against the real Cassandra of the integration run, and the CQL it costs: one request
 * reads row_keys once per metric and row time, all its row times in one statement, however many aliases ask; one
 * request per alias reads it each time.
 */
import { afterAll, expect, it } from 'vitest';
import type { CassandraStore, StatementCounts } from '../../src/store/cassandra/cassandra-store.js';
import { describeDashboardLimits, describeDashboardQueries } from '../graphql/dashboard-suite.js';
import { startGateway } from '../support/gateway.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_dashboards');
afterAll(() => pool.shutdown());

describeDashboardQueries('cassandra', (options = {}) => pool.store(options));
describeDashboardLimits('cassandra', (options = {}) => pool.store(options));

function delta(before: Readonly<StatementCounts>, after: Readonly<StatementCounts>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([name, n]) => [name, n! - (before[name as keyof StatementCounts] ?? 0)] as const)
      .filter(([, n]) => n !== 0),
  );
}

it('answers four aliases over one metric with one row_keys statement for its row times, where four requests need four', async () => {
  // One-minute rows: three minutes of data for six hosts is three row times, three partitions per host.
  const store = (await pool.store({ rowWidth: 60_000 })) as CassandraStore;
  // This counts what reads cost: the results cache would answer the repeated requests' ranges without reading.
  const gw = await startGateway(store, { CACHE_MAX_BYTES: '0' });
  try {
    const points = Array.from({ length: 18 }, (_, i) => ({ time: i * 10_000, value: i }));
    const hosts = ['h0', 'h1', 'h2', 'h3', 'h4', 'h5'];
    await gw.graphql(`mutation ($s: [SeriesPointsInput!]!) { addPoints(series: $s) { points } }`, {
      s: hosts.map((host) => ({ metric: 'cpu', tags: [{ name: 'host', value: host }], points })),
    });
    // Each alias reads hosts no other alias reads at the same time (those reads would be shared: sharing/shared-scans.ts).
    const alias = (a: number) =>
      `q${a}: series(metric: "cpu", from: 0, to: 179999, where: [{ tag: "host", in: ["h${a}"] }], aggregators: [{ sum: { sampling: { value: 1, unit: MINUTES } } }]) { points { value } }`;
    const before = store.statements;
    const one = await gw.graphql(`{ ${[0, 1, 2, 3].map(alias).join(' ')} }`);
    expect(one.body.errors).toBeUndefined();
    expect(delta(before, store.statements)).toEqual({
      'row_key_time_index.select': 1,
      'row_key_index.select': 1,
      // The three row times in one statement (IN on the partition key's last component).
      'row_keys.select_in': 1,
      // Each alias reads its host's three partitions: one page each.
      'data_points.select': 4 * 3,
    });
    const beforeNaive = store.statements;
    for (const a of [0, 1, 2, 3]) await gw.graphql(`{ ${alias(a)} }`);
    expect(delta(beforeNaive, store.statements)).toEqual({
      'row_key_time_index.select': 4,
      'row_key_index.select': 4,
      'row_keys.select_in': 4,
      'data_points.select': 4 * 3,
    });
  } finally {
    await gw.close();
    await store.close();
  }
});
