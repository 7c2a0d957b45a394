/**
 * The Prometheus the oracle tests run (tools/prometheus/, test/support/prometheus-server.ts) and what its
 * remote-write receiver takes: both protocol versions, staleness markers, and which old samples it refuses. A server of
 * its own, so that the times written here never move the shared server's head away from the oracle's dataset.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALE_NAN } from '../../src/engine/promql/values.js';
import { type PrometheusServer, startPrometheus } from '../support/prometheus-server.js';
import { remoteWrite } from '../support/remote-write.js';
import { askPrometheus } from './oracle-compare.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MIN = 60_000;

describe('a Prometheus of our own', () => {
  let server: PrometheusServer;

  beforeAll(async () => {
    server = await startPrometheus({ reuse: '' });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('reports its version and answers a query', async () => {
    expect(server.version).toMatch(/^3\.\d+\.\d+$/);
    const answer = await askPrometheus(server.url, { kind: 'instant', query: '1+1', timeMs: 4000 });
    expect(answer).toEqual({
      ok: true,
      type: 'scalar',
      series: [{ metric: '', points: [[4000, 2]] }],
      annotations: [],
    });
  });

  it('takes remote write 1.0 and 2.0, and a staleness marker ends a series', async () => {
    const times = [T0, T0 + MIN, T0 + 2 * MIN];
    await remoteWrite(server.url, [
      { labels: { __name__: 'rw_v1', a: 'x' }, timestampsMs: times, values: [1, 2, STALE_NAN] },
    ]);
    await remoteWrite(server.url, [{ labels: { __name__: 'rw_v2', a: 'y' }, timestampsMs: times, values: [3, 4, 5] }], {
      version: 2,
    });
    const at = (query: string, timeMs: number) => askPrometheus(server.url, { kind: 'instant', query, timeMs });
    expect(await at('{__name__=~"rw_v.", a!=""}', T0 + MIN)).toEqual({
      ok: true,
      type: 'vector',
      series: [
        { metric: '{__name__="rw_v1", a="x"}', points: [[T0 + MIN, 2]] },
        { metric: '{__name__="rw_v2", a="y"}', points: [[T0 + MIN, 4]] },
      ],
      annotations: [],
    });
    // Within the 5-minute lookback of the last real sample, the marker hides rw_v1 (an ordinary NaN would show).
    const after = await at('{__name__=~"rw_v.", a!=""}', T0 + 3 * MIN);
    expect(after.ok && after.series.map((s) => s.metric)).toEqual(['{__name__="rw_v2", a="y"}']);
  });

  it('refuses a sample older than an hour before the newest it holds, whatever the wall clock', async () => {
    // T0 is in the past and was taken: age against the wall clock does not matter, distance from the head's newest does.
    const newest = T0 + 3 * 3_600_000;
    await remoteWrite(server.url, [{ labels: { __name__: 'rw_head' }, timestampsMs: [newest], values: [1] }]);
    await expect(
      remoteWrite(server.url, [{ labels: { __name__: 'rw_old' }, timestampsMs: [newest - 61 * MIN], values: [1] }]),
    ).rejects.toThrow(/400.*out of bounds/s);
    await remoteWrite(server.url, [
      { labels: { __name__: 'rw_recent' }, timestampsMs: [newest - 59 * MIN], values: [1] },
    ]);
  });

  it('leaves nothing behind when stopped', async () => {
    const probe = await startPrometheus({ reuse: '' });
    const dir = `/proc/${probe.pid}`;
    expect(existsSync(dir)).toBe(true);
    await probe.stop();
    expect(existsSync(dir)).toBe(false);
  });
});
