/** The hostile-request suite against the embedded store, a fresh LMDB environment per test. */
import { afterAll } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describeHostileRequests } from './hostile-suite.js';

afterAll(removeTempDirs);

describeHostileRequests('embedded', () => EmbeddedStore.open({ path: tempDir('kairograph-hostile-') }), {
  fuzzRuns: 150,
  heavyCopies: 40,
});
