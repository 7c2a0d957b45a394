/** The KairosDB REST suite against the real Cassandra of the integration run. */
import { afterAll } from 'vitest';
import { describeKairosRest } from '../rest/kairos-rest-suite.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_rest');
afterAll(() => pool.shutdown());

describeKairosRest('cassandra', (options = {}) => pool.store(options));
