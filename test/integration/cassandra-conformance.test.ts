/** The store conformance suite against the real Cassandra of the integration run. */
import { afterAll } from 'vitest';
import { describeStoreConformance } from '../store-conformance.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_conformance');
afterAll(() => pool.shutdown());

describeStoreConformance('cassandra', (options) => pool.store(options));
