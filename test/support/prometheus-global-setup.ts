// Vitest globalSetup of the `prometheus` project: one real Prometheus (tools/prometheus/, built from the Go module proxy
// on first use) for the whole run, handed to tests through inject('prometheus'), stopped in teardown. Each test file
// writes its own series; names must not collide across files, as they share the one TSDB.
import type { TestProject } from 'vitest/node';
import { startPrometheus } from './prometheus-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    prometheus: { url: string; version: string; reused: boolean };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPrometheus();
  const how = server.pid === 0 ? 'reusing KAIROGRAPH_PROMETHEUS' : `pid ${server.pid}, ready in ${server.bootMs} ms`;
  console.log(`[${project.name}] Prometheus ${server.version} on ${server.url} (${how})`);
  project.provide('prometheus', { url: server.url, version: server.version, reused: server.pid === 0 });
  return async () => {
    await server.stop();
  };
}
