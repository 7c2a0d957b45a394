// Test projects: `unit` needs nothing but Node; `e2e` drives a real Chromium (installed from Debian when missing);
// `bigtable` builds (once per checkout, from the Go module proxy) and boots Google's Bigtable emulator;
// `integration` boots a real Cassandra (test/support/cassandra-global-setup.ts); `kairosdb` boots a real KairosDB 1.3
// on that same Cassandra (one node for a run of both projects) to compare Kairograph with it; `prometheus` builds (once per
// checkout, from the Go module proxy) and boots a real Prometheus, the oracle of the PromQL engine. The `cluster` project, a
// three-node cluster, has a config of its own (vitest.cluster.config.ts) so that a plain `vitest run` never boots it.
import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// graphql ships an ESM and a CommonJS build; Vite would hand our sources the ESM one while yoga and graphql-armor
// (loaded by Node) get CommonJS, and two copies of graphql reject each other's schemas and errors. Node itself
// resolves 'graphql' to the CommonJS build, so tests do the same.
const graphqlMain = createRequire(import.meta.url).resolve('graphql');

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlMain }] },
  test: {
    testTimeout: 20_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [
            'test/integration/**',
            'test/e2e/**',
            'test/kairosdb/**',
            'test/cluster/**',
            'test/prometheus/**',
            'test/bigtable/**',
            'test/senders/**',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/chromium-global-setup.ts'],
          testTimeout: 90_000,
        },
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
      {
        extends: true,
        test: {
          name: 'kairosdb',
          include: ['test/kairosdb/**/*.test.ts'],
          // Cassandra first: KairosDB is started on it. A project's globalSetup runs only when the run has files of it,
          // so `npm run test:integration` does not boot KairosDB.
          globalSetup: ['test/support/cassandra-global-setup.ts', 'test/support/kairosdb-global-setup.ts'],
          // One KairosDB and one Cassandra node on 2 cores, as for `integration`.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'prometheus',
          include: ['test/prometheus/**/*.test.ts'],
          // A project of its own so that its cost shows: the first run on a machine builds Prometheus (several minutes,
          // before any test file, as every globalSetup runs first), later runs boot it in seconds.
          globalSetup: ['test/support/prometheus-global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'bigtable',
          include: ['test/bigtable/**/*.test.ts'],
          // Google's Bigtable emulator (tools/bigtable/), built from the Go module proxy on a machine's first run (a few
          // minutes), then booted in well under a second.
          globalSetup: ['test/support/bigtable-global-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'senders',
          include: ['test/senders/**/*.test.ts'],
          // Real collectors running the docs' configurations: Telegraf, built from the Go module proxy on a machine's
          // first run (2-3 min), and Debian's collectd, unpacked (seconds); later runs start each for a few seconds.
          globalSetup: ['test/support/senders-global-setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
        },
      },
    ],
  },
});
