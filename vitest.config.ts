// Test projects: `unit` needs nothing but Node; `integration` boots a real Cassandra (test/support/cassandra-global-setup.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: ['test/integration/**', 'test/e2e/**'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/cassandra-global-setup.ts'],
          // One shared node on 2 cores: files in sequence, and DDL on a busy node can take seconds.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
