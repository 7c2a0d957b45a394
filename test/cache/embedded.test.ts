/** The shared-work suite against the embedded store. */
import { afterAll } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { describeSharedWork } from './shared-work-suite.js';

afterAll(removeTempDirs);

describeSharedWork('embedded', () => EmbeddedStore.open({ path: tempDir('kairograph-shared-') }));
