/** The golden suites against the embedded store, a fresh LMDB environment per file and variant. */
import { afterAll } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describeGoldenSuites } from './runner.js';

afterAll(removeTempDirs);

describeGoldenSuites('embedded', (options) => EmbeddedStore.open({ path: tempDir('kairograph-golden-'), ...options }));
