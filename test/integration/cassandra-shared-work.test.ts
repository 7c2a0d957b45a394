/** The shared-work suite (results cache, identical work in flight, invalidation) against the real Cassandra of the integration run. */
import { afterAll } from 'vitest';
import { describeSharedWork } from '../cache/shared-work-suite.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_shared_work');
afterAll(() => pool.shutdown());

describeSharedWork('cassandra', () => pool.store());
