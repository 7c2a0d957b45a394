/**
 * The dashboard suite against the embedded store (the integration run repeats it against Cassandra).
 */
import { afterAll } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describeDashboardLimits, describeDashboardQueries } from './dashboard-suite.js';

afterAll(removeTempDirs);

const embedded = (options: { rowWidth?: number } = {}) => EmbeddedStore.open({ path: tempDir(), ...options });
describeDashboardQueries('embedded', embedded);
describeDashboardLimits('embedded', embedded);
