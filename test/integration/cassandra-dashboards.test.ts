/** The GraphQL dashboard suite against the real Cassandra of the integration run. */
import { afterAll } from 'vitest';
import { describeDashboardLimits, describeDashboardQueries } from '../graphql/dashboard-suite.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_dashboards');
afterAll(() => pool.shutdown());

describeDashboardQueries('cassandra', (options = {}) => pool.store(options));
describeDashboardLimits('cassandra', (options = {}) => pool.store(options));
