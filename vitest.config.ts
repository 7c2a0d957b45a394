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
    ],
  },
});
