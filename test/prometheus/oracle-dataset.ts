/**
 * The oracle's dataset: two hours of synthetic series, written alike into a real Prometheus (remote write) and into
 * the engine's in-memory series. Deterministic: every value is a function of the series and the time, and the time
 * axis is fixed (ANCHOR_MS), so the answers, and so the list of known differences, are the same on every run and
 * machine.
 *
 * - The series of the PromLabs demo service that the compliance tester's query list expects (`demo_*`, three
 *   instances `demo.promlabs.com:10000`-`10002`, job `demo`, one sample every 5 s), shaped like the service's: gauges,
 *   counters with a reset, a classic histogram, a batch timestamp that moves in steps, a metric that comes and goes
 *   (with the staleness markers a scrape writes when a series disappears).
 * - Kairograph's own demo series (src/demo/seed.ts: `system.cpu.usage`, `http.requests`, ...), KairosDB names with
 *   dots that PromQL must quote; its string series are left out, as the engine skips non-numeric values. Beside
 *   them `jvm.memory.used`, whose tag names have dots too (`host.name`).
 *
 * A fixed past time is accepted: Prometheus's head refuses samples older than about an hour before the newest it
 * holds, not before the wall clock, and remoteWrite sends time slices in order into the empty TSDB of a fresh server.
 */
import type { WriteBatch } from '../../src/model/write-batch.js';
import { writeDemoPoints } from '../../src/demo/seed.js';
import { STALE_NAN } from '../../src/engine/promql/values.js';
import type { WriteSeries } from '../support/remote-write.js';

/** The dataset's "now": its last sample. A fixed day (a Tuesday, 14:00 UTC), so date functions answer alike. */
export const ANCHOR_MS = Date.UTC(2026, 10, 10, 14, 0, 0);
export const SPAN_MS = 2 * 3_600_000;
const SCRAPE_MS = 5_000;

/**
 * One series that tells a reused Prometheus already holds this dataset (and so must not be written again). Its version
 * changes with the data: a server holding another version must be replaced.
 */
export const MARKER = { __name__: 'kairograph_oracle_dataset', version: '3' } as const;

const INSTANCES = [0, 1, 2].map((i) => `demo.promlabs.com:${10000 + i}`);
const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
const ENDPOINTS = [
  { method: 'GET', path: '/api/foo', status: '200' },
  { method: 'POST', path: '/api/bar', status: '200' },
  { method: 'GET', path: '/api/bar', status: '500' },
];

export async function oracleDataset(): Promise<WriteSeries[]> {
  return [...demoService(), ...specialValues(), ...(await kairographDemo()), scrape(MARKER, 0, 0, () => 1)];
}

/**
 * `probe_special_values`: what real gauges sometimes hold and the demo service never does: NaN (not the staleness
 * marker), both infinities, zero, negatives, repeats. Each instance cycles through them out of phase, so an aggregation
 * at one step sees a mix.
 */
function specialValues(): WriteSeries[] {
  const cycle = [1.5, Number.NaN, -2, 0, Number.POSITIVE_INFINITY, 3.25, 3.25, Number.NEGATIVE_INFINITY, -0.5, 7];
  return INSTANCES.map((instance, i) =>
    scrape({ __name__: 'probe_special_values', instance, job: 'demo' }, 900 + i, i * 1_650, (k) => {
      const v = cycle[(Math.floor(k / 3) + 4 * i) % cycle.length]!;
      // Scaled by the scrape's number too, so windows over the same pattern still differ in value.
      return Number.isFinite(v) ? v * (1 + (k % 7) / 10) : v;
    }),
  );
}

/** A stable pseudo-random number in [0, 1) for (a, b). */
function noise(a: number, b: number): number {
  let h = (Math.imul(a + 1, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  h ^= h >>> 15;
  return (h >>> 0) / 2 ** 32;
}

/**
 * A series scraped every 5 s over the span, at the instance's phase (a target is scraped at a fixed offset in the
 * interval) plus a few ms of jitter, as a real scrape loop writes. `value(k, t)` gets the scrape's number and time;
 * undefined means the series was absent then (the first absent scrape writes a staleness marker).
 */
function scrape(
  labels: Readonly<Record<string, string>>,
  seed: number,
  phaseMs: number,
  value: (k: number, t: number) => number | undefined,
): WriteSeries {
  const timestampsMs: number[] = [];
  const values: number[] = [];
  const scrapes = SPAN_MS / SCRAPE_MS;
  let present = false;
  for (let k = 0; k <= scrapes; k++) {
    const t = ANCHOR_MS - SPAN_MS + k * SCRAPE_MS - phaseMs + Math.floor(noise(seed, k) * 20);
    const v = value(k, t);
    if (v === undefined) {
      if (present) {
        timestampsMs.push(t);
        values.push(STALE_NAN);
      }
      present = false;
      continue;
    }
    present = true;
    timestampsMs.push(t);
    values.push(v);
  }
  return { labels, timestampsMs, values };
}

/** A counter: increments of `perScrape` times a factor in [0.5, 1.5), from `start`; reset to 0 at scrape `resetAt`. */
function counter(seed: number, start: number, perScrape: number, resetAt = -1): (k: number) => number {
  const totals: number[] = [];
  let total = start;
  return (k) => {
    while (totals.length <= k) {
      const i = totals.length;
      if (i === resetAt) total = 0;
      else if (i > 0) total += perScrape * (0.5 + noise(seed, i));
      totals.push(total);
    }
    return totals[k]!;
  };
}

function demoService(): WriteSeries[] {
  const out: WriteSeries[] = [];
  let seed = 100;
  INSTANCES.forEach((instance, i) => {
    const base = { instance, job: 'demo' };
    const phase = i * 1_650;
    const s = () => seed++;
    out.push(scrape({ __name__: 'demo_num_cpus', ...base }, s(), phase, () => [4, 4, 8][i]!));
    const memory: Record<string, number> = { free: 2.1e9, buffers: 3.4e8, cached: 1.2e9, used: 4.5e9 };
    for (const [type, level] of Object.entries(memory)) {
      const n = s();
      out.push(
        scrape({ __name__: 'demo_memory_usage_bytes', ...base, type }, n, phase, (k) =>
          Math.round(level * (1 + 0.1 * i) + 2e8 * Math.sin(k / 90 + i) + 5e7 * noise(n, k)),
        ),
      );
    }
    for (const [m, mode] of ['idle', 'system', 'user'].entries()) {
      const n = s();
      // One counter restarts (a process restart): rate and increase must see the reset, resets() counts it.
      const c = counter(n, 1000 * (m + 1) * (i + 1), [3.2, 0.4, 1.1][m]!, i === 2 && mode === 'user' ? 900 : -1);
      out.push(scrape({ __name__: 'demo_cpu_usage_seconds_total', ...base, mode }, n, phase, (k) => c(k)));
    }
    const disk = s();
    out.push(
      scrape({ __name__: 'demo_disk_usage_bytes', ...base }, disk, phase, (k) =>
        Math.round(1.2e11 + (i + 1) * 2.5e5 * k + 4e6 * noise(disk, k)),
      ),
    );
    out.push(scrape({ __name__: 'demo_disk_total_bytes', ...base }, s(), phase, () => 2.5e11));
    // A batch job runs every 3 minutes (staggered per instance); one run in five fails and leaves the timestamp.
    out.push(
      scrape({ __name__: 'demo_batch_last_success_timestamp_seconds', ...base }, s(), phase, (_k, t) => {
        const period = 180_000;
        let run = Math.floor((t - i * 40_000) / period);
        while (noise(7 + i, run) < 0.2) run--;
        return (run * period + i * 40_000) / 1000;
      }),
    );
    const items = s();
    const shipped = counter(items, 0, 12);
    out.push(scrape({ __name__: 'demo_items_shipped_total', ...base }, items, phase, (k) => Math.round(shipped(k))));
    // Present for 2 minutes, absent for 1 (24 and 12 scrapes), out of phase per instance.
    out.push(
      scrape({ __name__: 'demo_intermittent_metric', ...base }, s(), phase, (k) =>
        (k + 8 * i) % 36 < 24 ? 1 + i : undefined,
      ),
    );
    for (const endpoint of ENDPOINTS) out.push(...histogram({ ...base, ...endpoint }, s(), phase));
  });
  return out;
}

/** demo_api_request_duration_seconds: cumulative bucket counters, `_sum` and `_count`, from one request stream. */
function histogram(labels: Readonly<Record<string, string>>, seed: number, phase: number): WriteSeries[] {
  const bounds = BUCKETS.map((le) => (le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le)));
  const state = { scrape: -1, counts: bounds.map(() => 0), sum: 0, count: 0 };
  const at = (k: number) => {
    while (state.scrape < k) {
      state.scrape++;
      if (state.scrape === 0) continue;
      const requests = 3 + Math.floor(noise(seed, state.scrape) * 8);
      for (let r = 0; r < requests; r++) {
        // Latencies from 3 ms to about 1 s, spread evenly in log scale (three times slower for errors).
        const latency =
          0.003 * 10 ** (2.5 * noise(seed + 1, state.scrape * 16 + r)) * (labels.status === '500' ? 3 : 1);
        state.sum += latency;
        state.count++;
        bounds.forEach((le, b) => {
          if (latency <= le) state.counts[b]!++;
        });
      }
    }
    return state;
  };
  const name = 'demo_api_request_duration_seconds';
  // The series share one state, so they are generated together, each reading the same scrapes in order.
  const buckets = BUCKETS.map((le) => ({
    labels: { __name__: `${name}_bucket`, ...labels, le },
    timestampsMs: [] as number[],
    values: [] as number[],
  }));
  const sum = { labels: { __name__: `${name}_sum`, ...labels }, timestampsMs: [] as number[], values: [] as number[] };
  const count = {
    labels: { __name__: `${name}_count`, ...labels },
    timestampsMs: [] as number[],
    values: [] as number[],
  };
  const times = scrape({ __name__: name, ...labels }, seed, phase, () => 0).timestampsMs;
  times.forEach((t, k) => {
    const s = at(k);
    buckets.forEach((b, i) => {
      b.timestampsMs.push(t);
      b.values.push(s.counts[i]!);
    });
    sum.timestampsMs.push(t);
    sum.values.push(s.sum);
    count.timestampsMs.push(t);
    count.values.push(s.count);
  });
  return [...buckets, sum, count];
}

/** Kairograph's demo data over the same two hours, one point every 10 s; string series left out. */
async function kairographDemo(): Promise<WriteSeries[]> {
  const out: WriteSeries[] = [];
  const target = {
    write: async (batch: WriteBatch) => {
      for (const s of batch.series)
        if (s.type !== 'string')
          out.push({
            labels: { __name__: s.metric, ...s.tags },
            timestampsMs: [...s.timestamps],
            values: s.values.map((v) => Number(v)),
          });
    },
  };
  await writeDemoPoints(target, ANCHOR_MS - SPAN_MS - 1, ANCHOR_MS);
  // KairosDB tags are free text: dotted tag names too, which PromQL must quote as label names.
  const dotted = [0, 1, 2, 3].map((h) =>
    scrape(
      { __name__: 'jvm.memory.used', 'host.name': `web-0${h + 1}`, 'service.version': `1.${h % 2}` },
      700 + h,
      h * 2_500,
      (k) => Math.round(2.5e8 + 1e8 * h + 4e7 * Math.sin(k / 40 + h)),
    ),
  );
  return [...out, ...dotted];
}
