/**
 * The written index on a clock the tests move: what it covers and for how long (its age limit, the row's TTL, the
 * cells a write adds), its bound in entries, and what drops and clears do to entries and to writes in flight.
 */
import { describe, expect, it } from 'vitest';
import { indexKey, WrittenIndex } from './written-index.js';

const T0 = 1_700_000_000_000;

function index(maxEntries = 10, maxAgeMs = 300_000): { written: WrittenIndex; clock: { t: number } } {
  const clock = { t: T0 };
  return { written: new WrittenIndex({ maxEntries, maxAgeMs, now: () => clock.t }), clock };
}

describe('the written index', () => {
  it('covers a row without a TTL until its age limit, for cells that expire or not', () => {
    const { written, clock } = index();
    written.add(written.stamp(), 'a', 0);
    expect(written.covers('a', Infinity)).toBe(true);
    expect(written.covers('b', Infinity)).toBe(false);
    clock.t = T0 + 299_999;
    expect(written.covers('a', Infinity)).toBe(true);
    expect(written.covers('a', clock.t + 3_600_000)).toBe(true);
    clock.t = T0 + 300_000;
    expect(written.covers('a', Infinity)).toBe(false);
    // A stale entry is swept when found.
    expect(written.size).toBe(0);
  });

  it('forgets a row a minute before its TTL from the stamp ends, even within the age limit', () => {
    const { written, clock } = index(10, 3_600_000);
    const stamp = written.stamp();
    clock.t = T0 + 5000;
    // Acknowledged 5 s after it was sent: the TTL still counts from the stamp.
    written.add(stamp, 'a', 120);
    clock.t = T0 + 59_999;
    expect(written.covers('a', T0 + 60_000)).toBe(true);
    clock.t = T0 + 60_000;
    expect(written.covers('a', T0 + 60_000)).toBe(false);
    expect(written.size).toBe(0);
  });

  it('does not cover a write whose cells outlive the row, nor cells that never expire under a row with a TTL', () => {
    const { written } = index();
    written.add(written.stamp(), 'a', 3600);
    const rowUntil = T0 + 3_540_000;
    expect(written.covers('a', rowUntil)).toBe(true);
    expect(written.covers('a', rowUntil + 1)).toBe(false);
    expect(written.covers('a', Infinity)).toBe(false);
    // Not covering a longer need forgets nothing: a write with the row's own TTL is still covered.
    expect(written.covers('a', rowUntil)).toBe(true);
  });

  it('records nothing whose TTL ends within the margin, nor anything when it may hold no entry', () => {
    const { written } = index();
    written.add(written.stamp(), 'short', 60);
    expect(written.size).toBe(0);
    const none = index(0).written;
    none.add(none.stamp(), 'a', 0);
    expect(none.covers('a', 0)).toBe(false);
    expect(none.size).toBe(0);
  });

  it('keeps at most maxEntries, forgetting the longest written first; a row written again is newest', () => {
    const { written, clock } = index(3);
    for (const key of ['a', 'b', 'c']) {
      written.add(written.stamp(), key, 0);
      clock.t += 1000;
    }
    written.add(written.stamp(), 'a', 0);
    written.add(written.stamp(), 'd', 0);
    expect(written.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((key) => written.covers(key, Infinity))).toEqual([true, false, true, true]);
  });

  it('sweeps stale entries from the front as rows are added', () => {
    const { written, clock } = index(10, 10_000);
    written.add(written.stamp(), 'a', 0);
    written.add(written.stamp(), 'b', 0);
    clock.t = T0 + 10_000;
    written.add(written.stamp(), 'c', 0);
    expect(written.size).toBe(1);
  });

  it('forgets dropped rows, and records nothing of a write stamped before a drop or a clear', () => {
    const { written } = index();
    written.add(written.stamp(), 'a', 0);
    written.add(written.stamp(), 'b', 0);
    const inFlight = written.stamp();
    written.drop(['a']);
    expect(written.covers('a', 0)).toBe(false);
    expect(written.covers('b', 0)).toBe(true);
    written.add(inFlight, 'c', 0);
    expect(written.covers('c', 0)).toBe(false);
    const before = written.stamp();
    written.clear();
    expect(written.size).toBe(0);
    written.add(before, 'd', 0);
    expect(written.size).toBe(0);
    written.add(written.stamp(), 'd', 0);
    expect(written.covers('d', 0)).toBe(true);
  });

  it('keys each kind of row apart from the others, and tag pairs apart from the row key', () => {
    const key = Buffer.from([0x63, 0x00, 0xff, 0x3d]);
    const keys = [
      indexKey.rowKey(key),
      indexKey.tagged(key, 'a=b'),
      indexKey.tagged(Buffer.from('=b'), 'a'),
      indexKey.rowTime('cpu', 0),
      indexKey.rowTime('0:cpu', 0),
      indexKey.name('cpu'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(indexKey.rowKey(key)).toBe('kc\u0000\u00ff=');
  });
});
