/** The hostile-request suite against the real Cassandra of the integration run. */
import { afterAll } from 'vitest';
import { describeHostileRequests } from '../hostile/hostile-suite.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_hostile');
afterAll(() => pool.shutdown());

describeHostileRequests('cassandra', () => pool.store(), { fuzzRuns: 30, heavyCopies: 4 });
