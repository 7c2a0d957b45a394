// Vitest globalSetup of the `bigtable` project: one Bigtable emulator (tools/bigtable/, built from the Go module proxy
// on first use) for the whole run, handed to tests through inject('bigtable'), stopped in teardown. Tables are in
// memory and shared by every file: each file uses an instance name of its own.
import type { TestProject } from 'vitest/node';
import { startBigtable } from './bigtable-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    bigtable: { endpoint: string; writer: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startBigtable();
  const how = server.pid === 0 ? 'reusing KAIROGRAPH_BIGTABLE' : `pid ${server.pid}, ready in ${server.bootMs} ms`;
  console.log(`[${project.name}] Bigtable emulator on ${server.endpoint} (${how})`);
  project.provide('bigtable', { endpoint: server.endpoint, writer: server.writer });
  return async () => {
    await server.stop();
  };
}
