// The `cluster` project (`npm run test:cluster`): a three-node Cassandra on 127.0.0.1-3 that its one test file boots,
// crashes and restarts. A config of its own so that `vitest run` (`npm test`) never starts it: three nodes and the
// waits for Cassandra to notice a crash would add minutes to every run for what changes rarely.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  resolve: base.resolve,
  test: {
    name: 'cluster',
    include: ['test/cluster/**/*.test.ts'],
    // Nodes are killed and restarted in sequence: the steps of a file build on each other, and one cluster is enough.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
});
