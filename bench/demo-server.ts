/**
 * The production gateway (bench/gateway-process.ts) on a fresh embedded store seeded with the demo dataset, removed
 * when it stops: what bench:admission and bench:compression measure from outside, with its CPU time and memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, memoryKb, startGateway } from './gateway-process.js';

export { buildGateway as build } from './gateway-process.js';

export interface DemoServer {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds of CPU the server process has used (every thread: zlib's and libuv's pool too). */
  cpuMs(): number;
  rssKb(): number;
  stop(): Promise<void>;
}

/** Starts the built gateway in `dir` with `env` over its defaults; resolves once it listens (after seeding). */
export async function startDemoServer(dir: string, env: Record<string, string> = {}): Promise<DemoServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kairograph-bench-'));
  const gateway = await startGateway(dir, { DATA_DIR: dataDir, SEED_DEMO: 'true', ...env });
  return {
    url: gateway.url,
    pid: gateway.pid,
    cpuMs: () => cpuSeconds(gateway.pid) * 1000,
    rssKb: () => memoryKb(gateway.pid, 'VmRSS'),
    async stop() {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
