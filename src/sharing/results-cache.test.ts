// ResultsCache: bounded by bytes, aged from when an entry's oldest range was read, and invalidated per source and
// metric by the writes that may reach a kept range, not by writes of fresh points.
import { describe, expect, it } from 'vitest';
import type { CachedExtent } from '../engine/bucket-cache.js';
import { ResultsCache } from './results-cache.js';
import { WriteGenerations } from './write-generations.js';

/** An entry of `bytes` bytes read at `readAtMs` (its columns do not matter here). */
function extent(bytes: number, readAtMs: number): CachedExtent {
  const none = new Float64Array(0);
  return {
    fromMs: 0,
    toMs: 60_000,
    readAtMs,
    starts: none,
    counts: none,
    firstOutput: Uint32Array.of(0),
    ts: none,
    nums: none,
    kinds: [],
    extras: [],
    series: new Map(),
    bytes,
  };
}

function cache(maxBytes = 10_000) {
  const generations = new WriteGenerations();
  const clock = { ms: 1_000_000 };
  const c = new ResultsCache({ maxBytes, freshnessMs: 60_000, ttlMs: 600_000, generations, now: () => clock.ms });
  return { c, generations, clock };
}

describe('ResultsCache', () => {
  it('keeps at most CACHE_MAX_BYTES, letting the least recently used entries go, and never an entry larger than that', () => {
    const { c, clock } = cache(10_000);
    // Keys count too, 2 bytes a character: 2,992 + 8 bytes an entry.
    for (let i = 0; i < 5; i++) c.put(`m\u0000k${i}`, 'm', extent(2_992, clock.ms));
    expect([c.entries, c.bytes]).toEqual([3, 9_000]);
    expect(['k0', 'k1', 'k2', 'k3', 'k4'].map((k) => c.get(`m\u0000${k}`) !== undefined)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    c.put('m\u0000huge', 'm', extent(20_000, clock.ms));
    expect(c.get('m\u0000huge')).toBeUndefined();
    expect(c.entries).toBe(3);
  });

  it('ages an entry from when its oldest range was read, however often it grew since', () => {
    const { c, clock } = cache();
    const readAt = clock.ms - 500_000;
    c.put('m\u0000a', 'm', extent(100, readAt));
    clock.ms += 99_999;
    c.put('m\u0000a', 'm', extent(200, readAt));
    expect(c.get('m\u0000a')?.bytes).toBe(200);
    clock.ms += 1;
    expect(c.get('m\u0000a')).toBeUndefined();
    // One read longer ago than the TTL is not kept at all.
    c.put('m\u0000b', 'm', extent(100, clock.ms - 600_000));
    expect(c.entries).toBe(0);
  });

  it("drops a source's metric's entries and moves its generation on for a write older than the freshness window, and only then", () => {
    const { c, generations, clock } = cache();
    c.put('k/cpu\u0000a', 'k/cpu', extent(100, clock.ms));
    c.put('k/cpu\u0000b', 'k/cpu', extent(100, clock.ms));
    c.put('k/mem\u0000a', 'k/mem', extent(100, clock.ms));
    // Another source's metric of the same name is another metric.
    c.put('archive/cpu\u0000a', 'archive/cpu', extent(100, clock.ms));
    generations.bump('k', 'cpu', clock.ms - 60_000);
    expect([c.generation('k/cpu'), c.entries, c.invalidations]).toEqual([0, 4, 0]);
    generations.bump('k', 'cpu', clock.ms - 60_001);
    expect([
      c.generation('k/cpu'),
      c.generation('k/mem'),
      c.generation('archive/cpu'),
      c.entries,
      c.invalidations,
    ]).toEqual([1, 0, 0, 2, 2]);
    expect([c.get('k/mem\u0000a'), c.get('archive/cpu\u0000a')].map((e) => e !== undefined)).toEqual([true, true]);
    // A whole metric deleted: no time known.
    generations.bump('k', 'mem');
    expect([c.generation('k/mem'), c.entries]).toEqual([1, 1]);
  });
});
