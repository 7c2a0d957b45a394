/**
 * The demo dataset: a few days of 10-second data ending now, for hosts in two data centres (CPU, memory,
 * request latency and counters, deploy versions as strings). Values depend only on the series and the
 * timestamp, so the data is the same on every machine for the same clock.
 */
import type { SeriesWrite, Store, Tags } from '../store/store.js';

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
const ENDPOINTS: readonly Tags[] = ['eu-west', 'us-east'].flatMap((dc) => ['/api/orders', '/api/users'].map((endpoint) => ({ dc, endpoint })));
const DAY_MS = 86_400_000;
const BATCH_POINTS = 50_000;

interface DemoSeries {
  readonly metric: string;
  readonly tags: Tags;
  readonly type: SeriesWrite['type'];
  /** Value at epoch ms `t`; `i` is the point's index in the series, `noise` a stable pseudo-random number in [0,1). */
  readonly value: (t: number, i: number, noise: number) => number | string;
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
      // A monotonic counter: 100-160 requests per 10 s; the jitter (< 7) never makes it go down.
      value: (t, i) => i * (100 + 20 * e) + (hash(e + 1000, Math.floor(t / 10_000)) % 7),
    });
  });
  return series;
}

export async function seedDemoData(store: Store, options: DemoOptions): Promise<DemoSummary> {
  const step = options.stepMs ?? 10_000;
  const count = Math.floor(((options.days ?? 3) * DAY_MS) / step);
  const end = Math.floor(options.endMs / step) * step;
  const first = end - (count - 1) * step;
  let batch: SeriesWrite[] = [];
  let batchPoints = 0;
  let points = 0;
  const all = demoSeries();
  for (const [s, spec] of all.entries()) {
    const every = spec.every ?? 1;
    for (let from = 0; from < count; from += BATCH_POINTS) {
      const timestamps: number[] = [];
      const values: (number | string)[] = [];
      for (let i = from; i < Math.min(count, from + BATCH_POINTS); i += every) {
        const t = first + i * step;
        timestamps.push(t);
        values.push(spec.value(t, i, (hash(s, t / step) % 10_000) / 10_000));
      }
      batch.push({ metric: spec.metric, tags: spec.tags, type: spec.type, ttlSeconds: 0, timestamps, values });
      batchPoints += timestamps.length;
      points += timestamps.length;
      if (batchPoints >= BATCH_POINTS) {
        await store.write({ series: batch });
        batch = [];
        batchPoints = 0;
      }
    }
  }
  if (batch.length > 0) await store.write({ series: batch });
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
