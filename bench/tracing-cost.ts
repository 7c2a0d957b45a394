/**
 * What OpenTelemetry tracing costs a dashboard (part of bench:dashboard): the same 4-panel refresh, one after another,
 * on two gateways over one store, one with OTEL_TRACES_EXPORTER=otlp exporting every span to a local OTLP/HTTP
 * receiver (which reads and drops them, as a collector's queue would take them) and one without; rounds alternate
 * between the two so drift of the machine falls on both. Reported: the median refresh time and the process CPU per
 * refresh of each, and their ratio (target ≤ 1.05).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig } from '../src/gateway/config.js';
import { createGateway, listen } from '../src/gateway/create-gateway.js';
import { primaryOnly } from '../src/sources/open-sources.js';
import type { Store } from '../src/store/store.js';
import { median } from './measure.js';

const ROUNDS = 10;
const PER_ROUND = 20;

export async function tracingCost(store: Store, refresh: (url: string) => Promise<{ ms: number }>): Promise<void> {
  let spansBytes = 0;
  const receiver = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (spansBytes += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  const before = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = endpoint;
  const start = async (env: Record<string, string>) => {
    const config = loadConfig({ SEED_DEMO: 'false', QUERY_TIMEOUT_MS: '600000', ...env });
    const gateway = createGateway({
      sources: primaryOnly(config.primarySourceName, store),
      config,
      log: pino({ level: 'silent' }),
    });
    const server = await listen(gateway.handle, '127.0.0.1', 0, { requestTimeoutMs: config.queryTimeoutMs });
    return { gateway, server };
  };
  const off = await start({});
  const on = await start({ OTEL_TRACES_EXPORTER: 'otlp' });
  const figures = { off: { ms: [] as number[], cpuMs: 0 }, on: { ms: [] as number[], cpuMs: 0 } };
  try {
    for (const side of [off, on]) for (let i = 0; i < PER_ROUND; i++) await refresh(side.server.url);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, side] of [
        ['off', off],
        ['on', on],
      ] as const) {
        const cpu = process.cpuUsage();
        for (let i = 0; i < PER_ROUND; i++) figures[name].ms.push((await refresh(side.server.url)).ms);
        const used = process.cpuUsage(cpu);
        figures[name].cpuMs += (used.user + used.system) / 1000;
      }
    }
  } finally {
    for (const side of [off, on]) {
      side.server.server.closeAllConnections();
      await side.server.close();
      await side.gateway.flushTraces();
    }
    if (before === undefined) delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = before;
    await new Promise((resolve) => receiver.close(resolve));
  }
  const refreshes = ROUNDS * PER_ROUND;
  const row = (name: 'off' | 'on') =>
    `median ${median(figures[name].ms).toFixed(1)} ms, CPU ${(figures[name].cpuMs / refreshes).toFixed(1)} ms per refresh`;
  console.log(
    `\n## Tracing's cost (${ROUNDS} alternating rounds of ${PER_ROUND} refreshes, one at a time, results cache on)`,
  );
  console.log(`  tracing off: ${row('off')}`);
  console.log(
    `  tracing on (OTLP/HTTP to a local receiver, ${(spansBytes / refreshes / 1024).toFixed(1)} KiB of spans per refresh): ${row('on')}`,
  );
  console.log(
    `  on / off: time ${(median(figures.on.ms) / median(figures.off.ms)).toFixed(3)}, CPU ${(figures.on.cpuMs / figures.off.cpuMs).toFixed(3)} (target ≤ 1.05)`,
  );
}
