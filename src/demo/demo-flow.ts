/**
 * Keeps the demo dataset flowing while the gateway runs: at start, the gap since the demo's last point is filled (the
 * whole dataset on a first start), then every series gets its next point every 10 s, written through the gateway's
 * source so the results cache and live queries see them as any write through the gateway.
 */
import { executeQuery, newQueryStats, unlimitedRequest } from '../engine/execute.js';
import type { Logger } from '../lib/log.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import type { MetricQuery } from '../model/query.js';
import type { Source } from '../sources/source.js';
import { seedDemoData, writeDemoPoints, type DemoSummary } from './seed.js';

export interface DemoFlowOptions {
  readonly log: Logger;
  /** Days of data a first start writes, and the longest gap filled later (3). */
  readonly days?: number;
  readonly stepMs?: number;
  /** The clock (tests move it). */
  readonly now?: () => number;
}

export interface DemoFlow {
  /** Writes the steps since the last one written up to now; what the timer runs every step. */
  tick(): Promise<DemoSummary>;
  stop(): void;
}

/** The series whose last point tells where the demo data ends: every demo series has a point at every step it has. */
const CLOCK_QUERY = {
  metric: 'system.cpu.usage',
  tags: [
    { tag: 'host', in: ['web-01'] },
    { tag: 'dc', in: ['eu-west'] },
  ],
};

/**
 * Starts the flow on `source` when it holds the demo data (or nothing yet: then the dataset is seeded first), after
 * filling the gap since its last point; undefined when the source holds other data, which the demo must not mix with.
 */
export async function keepDemoFlowing(source: Source, options: DemoFlowOptions): Promise<DemoFlow | undefined> {
  const { log } = options;
  const stepMs = options.stepMs ?? 10_000;
  const days = options.days ?? 3;
  const now = options.now ?? Date.now;
  const started = performance.now();
  const startMs = now();
  let lastMs = await lastDemoPoint(source, startMs - days * 86_400_000, startMs);
  const gapMs = lastMs === undefined ? null : startMs - lastMs;
  let filled: DemoSummary;
  if (lastMs === undefined) {
    if ((await source.metricNames('', 1)).length > 0) return undefined;
    filled = await seedDemoData(source, { endMs: startMs, days, stepMs });
  } else {
    filled = await writeDemoPoints(source, lastMs, startMs, stepMs);
  }
  lastMs = Math.floor(startMs / stepMs) * stepMs;
  log.info(
    { ...filled, gapMs, ms: Math.round(performance.now() - started), everyMs: stepMs },
    `demo data filled up to now; a point every ${stepMs / 1000} s per series while the gateway runs (SEED_DEMO=false turns this off)`,
  );
  let running: Promise<DemoSummary> | undefined;
  let failing = false;
  const tick = async (): Promise<DemoSummary> => {
    // One write at a time: a slow write must not be overtaken by the next tick's.
    while (running) await running.catch(() => undefined);
    const endMs = now();
    const run = writeDemoPoints(source, lastMs!, endMs, stepMs);
    running = run;
    try {
      const summary = await run;
      lastMs = Math.max(lastMs!, Math.floor(endMs / stepMs) * stepMs);
      failing = false;
      return summary;
    } catch (error) {
      // Once per run of failures: a full disk must not fill the log every 10 s.
      if (!failing) log.warn({ err: error }, 'could not write the demo data; retrying every step');
      failing = true;
      throw error;
    } finally {
      running = undefined;
    }
  };
  const timer = setInterval(() => void tick().catch(() => undefined), stepMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}

/** The time of the demo's last point in [startMs, endMs], through the engine; undefined when there is none. */
async function lastDemoPoint(source: Source, startMs: number, endMs: number): Promise<number | undefined> {
  const query: MetricQuery = {
    ...CLOCK_QUERY,
    range: { startMs, endMs },
    aggregators: [],
    groupBy: [],
    timeZone: 'UTC',
    order: 'desc',
    limit: 1,
    excludeTags: true,
  };
  const budgets = { maxSeries: 10, maxPointsRead: Infinity, maxPointsReturned: 10, onExceed: 'error' as const };
  const output = await executeQuery(query, {
    source,
    index: new IndexLoaders(),
    budgets,
    request: unlimitedRequest(),
    stats: newQueryStats(),
    nowMs: endMs,
  });
  const points = output.groups[0]?.points;
  return points && points.length > 0 ? points.timestamps[0] : undefined;
}
