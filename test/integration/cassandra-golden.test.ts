/** The golden suites (all variants, 10 ms rows included) against the real Cassandra of the integration run. */
import { afterAll } from 'vitest';
import { describeGoldenSuites } from '../golden/runner.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_golden');
afterAll(() => pool.shutdown());

describeGoldenSuites('cassandra', (options) => pool.store(options));
