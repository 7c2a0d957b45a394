/** The KairosDB REST and input hygiene suites against the embedded store, a fresh LMDB environment per test. */
import { afterAll } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describeInputHygiene } from './input-hygiene-suite.js';
import { describeKairosRest } from './kairos-rest-suite.js';

afterAll(removeTempDirs);

describeKairosRest('embedded', (options = {}) => EmbeddedStore.open({ path: tempDir('kairograph-rest-'), ...options }));
// LMDB keys of 1978 bytes: string_index takes 14 of them around a metric name, data_points 7 around a row key.
describeInputHygiene('embedded', () => EmbeddedStore.open({ path: tempDir('kairograph-hygiene-') }), {
  store: "the embedded store's",
  maxMetricBytes: 1964,
  maxRowKeyBytes: 1971,
});
