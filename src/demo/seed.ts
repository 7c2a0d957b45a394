/**
 * The demo dataset: a few days of 10-second data ending now, for hosts in two data centres (CPU, memory,
 * request latency and counters, deploy versions as strings). Values depend only on the series and the
 * timestamp, so the data is the same on every machine for the same clock, and a range written later (demo-flow.ts
 * tops it up while the gateway runs) continues it seamlessly.
 */
import type { SeriesWrite, WriteBatch } from '../model/write-batch.js';
import type { Tags } from '../model/series.js';

/** Where demo points go: a store, or a gateway's source (so its writes reach the results cache and live queries). */
export interface DemoTarget {
  write(batch: WriteBatch): Promise<void>;
}

export interface DemoOptions {
  readonly endMs: number;
  readonly days?: number;
  readonly stepMs?: number;
}

export interface DemoSummary {
  readonly series: number;
  readonly points: number;
}

const HOSTS: readonly Tags[] = [
  { dc: 'eu-west', host: 'web-01' },
  { dc: 'eu-west', host: 'web-02' },
  { dc: 'eu-west', host: 'web-03' },
  { dc: 'us-east', host: 'web-04' },
  { dc: 'us-east', host: 'web-05' },
  { dc: 'us-east', host: 'web-06' },
];
const ENDPOINTS: readonly Tags[] = ['eu-west', 'us-east'].flatMap((dc) =>
  ['/api/orders', '/api/users'].map((endpoint) => ({ dc, endpoint })),
);
const DAY_MS = 86_400_000;
const BATCH_POINTS = 50_000;

interface DemoSeries {
  readonly metric: string;
  readonly tags: Tags;
  readonly type: SeriesWrite['type'];
  /** Value at epoch ms `t`; `i` is the step's number since the epoch (`t / step`), `noise` a stable pseudo-random number in [0,1). */
  readonly value: (t: number, i: number, noise: number) => number | string;
  /** One point in this many steps, on steps whose number is a multiple of it. */
  readonly every?: number;
}

function demoSeries(): DemoSeries[] {
  const series: DemoSeries[] = [];
  HOSTS.forEach((tags, h) => {
    series.push({
      metric: 'system.cpu.usage',
      tags,
      type: 'double',
      value: (t, _i, noise) => round2(Math.min(100, 20 + 8 * h + 25 * daily(t) + 10 * noise)),
    });
    series.push({
      metric: 'system.memory.used',
      tags,
      type: 'long',
      value: (t, _i, noise) => Math.round((4 + h / 2 + 1.5 * daily(t) + 0.2 * noise) * 2 ** 30),
    });
    series.push({
      metric: 'app.deploy.version',
      tags,
      type: 'string',
      // One deploy every 8 hours, staggered per host.
      every: 2880,
      value: (t) => `v1.${Math.floor((t + h * 600_000) / (8 * 3_600_000)) % 40}.${h}`,
    });
  });
  ENDPOINTS.forEach((tags, e) => {
    series.push({
      metric: 'http.request.latency',
      tags,
      type: 'double',
      value: (t, _i, noise) => round2(40 + 15 * e + 30 * daily(t) + 60 * noise ** 8),
    });
    series.push({
      metric: 'http.requests',
      tags,
      type: 'long',
      // A monotonic counter: 100-160 requests per 10 s; the jitter (< 7) never makes it go down. Counted from the
      // epoch, so a range written later continues the same counter.
      value: (t, i) => i * (100 + 20 * e) + (hash(e + 1000, Math.floor(t / 10_000)) % 7),
    });
  });
  return series;
}

/** Writes `days` of demo data (3 by default) ending at the last step at or before `endMs`. */
export async function seedDemoData(target: DemoTarget, options: DemoOptions): Promise<DemoSummary> {
  const step = options.stepMs ?? 10_000;
  const count = Math.floor(((options.days ?? 3) * DAY_MS) / step);
  const end = Math.floor(options.endMs / step) * step;
  return writeDemoPoints(target, end - count * step, end, step);
}

/**
 * Writes the demo points of every series at the steps after `afterMs` up to `endMs` (inclusive), in batches of about
 * 50,000 points. Writing a step twice writes the same values.
 */
export async function writeDemoPoints(
  target: DemoTarget,
  afterMs: number,
  endMs: number,
  stepMs = 10_000,
): Promise<DemoSummary> {
  const firstStep = Math.floor(afterMs / stepMs) + 1;
  const lastStep = Math.floor(endMs / stepMs);
  let batch: SeriesWrite[] = [];
  let batchPoints = 0;
  let points = 0;
  const all = demoSeries();
  for (const [s, spec] of all.entries()) {
    const every = spec.every ?? 1;
    const start = Math.ceil(firstStep / every) * every;
    for (let from = start; from <= lastStep; from += BATCH_POINTS * every) {
      const timestamps: number[] = [];
      const values: (number | string)[] = [];
      for (let i = from; i <= Math.min(lastStep, from + (BATCH_POINTS - 1) * every); i += every) {
        const t = i * stepMs;
        timestamps.push(t);
        values.push(spec.value(t, i, (hash(s, i) % 10_000) / 10_000));
      }
      batch.push({ metric: spec.metric, tags: spec.tags, type: spec.type, ttlSeconds: 0, timestamps, values });
      batchPoints += timestamps.length;
      points += timestamps.length;
      if (batchPoints >= BATCH_POINTS) {
        await target.write({ series: batch });
        batch = [];
        batchPoints = 0;
      }
    }
  }
  if (batch.length > 0) await target.write({ series: batch });
  return { series: all.length, points };
}

/** 0..1 over the day, peaking mid-afternoon UTC. */
function daily(t: number): number {
  return 0.5 + 0.5 * Math.sin(((t % DAY_MS) / DAY_MS) * 2 * Math.PI - Math.PI / 2 - 0.6);
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** A 32-bit integer hash (murmur3's finaliser) of two integers: stable pseudo-randomness without state. */
function hash(a: number, b: number): number {
  let h = (Math.imul(a, 0x9e3779b1) ^ (b | 0) ^ Math.floor(b / 2 ** 32)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
