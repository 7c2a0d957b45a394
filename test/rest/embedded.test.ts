/** The KairosDB REST suite against the embedded store, a fresh LMDB environment per test. */
import { afterAll } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describeKairosRest } from './kairos-rest-suite.js';

afterAll(removeTempDirs);

describeKairosRest('embedded', (options = {}) => EmbeddedStore.open({ path: tempDir('kairograph-rest-'), ...options }));
