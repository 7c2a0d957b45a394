/**
 * The copy library between two embedded KairosDB sources of a SOURCES_FILE: point-for-point equality, filters, the
 * state file (resume, another copy's state, a torn record), idempotence, bounded writes, refusals, and the read-back
 * check finding a changed destination; the exact sums it compares; and the command line's arguments.
 */
import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, dump, HOUR, series } from '../../test/support/copy-sources.js';
import { removeTempDirs } from '../../test/support/temp-dir.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import type { Partition } from '../model/series.js';
import type { WriteBatch } from '../model/write-batch.js';
import type { Source } from '../sources/source.js';
import { parseCopyArgs } from './args.js';
import { copySeries, summary, type CopyOptions } from './copy.js';
import { partitionId } from './copy-state.js';
import { ExactDoubleSum, ExactIntegerSum } from './read-back.js';

afterAll(removeTempDirs);

const ALL_TIME = { startMs: -8.64e15, endMs: 8.64e15 };

/** Source `a` holding every kind of value over several partitions, and an empty `b` with rows of another width. */
async function populated() {
  const fixture = await copyFixture(7 * HOUR);
  const a = await fixture.open('a');
  const b = await fixture.open('b');
  const longs = [2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, 0n, -1n];
  await a.write({
    series: [
      series(
        'm.long',
        { host: 'h1', dc: 'x' },
        'long',
        -2 * HOUR,
        60_000,
        300,
        (i) => longs[i % longs.length]! + BigInt(i % 5 === 3 ? i : 0),
      ),
      series('m.long', { host: 'h2', dc: 'x' }, 'long', 0, 90_000, 200, (i) => i * 1000),
      series(
        'm.double',
        { host: 'h1', '1': 'integer-like tag name' },
        'double',
        3 * HOUR,
        30_000,
        400,
        (i) => [0.1, -0, 1e300, 5e-324, -2.5][i % 5]! * (i + 1),
      ),
      series('m.string', { host: 'h1' }, 'string', HOUR, 120_000, 100, (i) => `v${i} – ünïcode ✓`),
      series('m.untagged', {}, 'double', 0, 60_000, 10, (i) => i / 3),
    ],
  });
  const options = (extra: Partial<CopyOptions> = {}): CopyOptions => ({
    from: a,
    to: b,
    range: ALL_TIME,
    statePath: join(fixture.dir, 'copy.state'),
    ...extra,
  });
  return { fixture, a, b, options, close: () => Promise.all([a.close(), b.close()]) };
}

/** Record lines of a state file (the header excluded). */
function records(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').slice(1, -1);
}

describe('copySeries', () => {
  it('copies every metric point for point: types, longs beyond 2^53, strings, negative times, untagged series', async () => {
    const { a, b, options, close } = await populated();
    const result = await copySeries(options({ batchPoints: 128 }));
    const source = await dump(a);
    expect(Object.keys(source)).toEqual([
      'm.double{1=integer-like tag name,host=h1} double',
      'm.long{dc=x,host=h1} long',
      'm.long{dc=x,host=h2} long',
      'm.string{host=h1} string',
      'm.untagged{} double',
    ]);
    expect(source['m.long{dc=x,host=h1} long']!.slice(0, 3)).toEqual([
      '-7200000 9007199254740993',
      '-7140000 -9223372036854775808',
      '-7080000 9223372036854775807',
    ]);
    expect(source['m.string{host=h1} string']![1]).toBe('3720000 "v1 – ünïcode ✓"');
    expect(await dump(b)).toEqual(source);
    expect(result).toMatchObject({ points: 1010, series: 5, skipped: 0, mismatches: [] });
    expect(result.partitions).toBeGreaterThan(10);
    expect(summary(result)).toMatch(
      /^copied 1010 points of 5 series \(\d+ partitions\) in \d+\.\d s; read back: counts and sums equal$/,
    );
    expect(records(options().statePath)).toHaveLength(result.partitions);
    await close();
  });

  it('copies only the metrics named, and only the points in the time range (both ends inclusive)', async () => {
    const { a, b, options, close } = await populated();
    const result = await copySeries(
      options({ metrics: ['m.long', 'm.string'], range: { startMs: 0, endMs: 2 * HOUR } }),
    );
    const copied = await dump(b);
    expect(Object.keys(copied)).toEqual([
      'm.long{dc=x,host=h1} long',
      'm.long{dc=x,host=h2} long',
      'm.string{host=h1} string',
    ]);
    // h1 from -2 h every minute: 0 .. 2 h is points 120 to 240; h2 every 90 s from 0: 81; strings every 2 min from 1 h: 31.
    expect(copied['m.long{dc=x,host=h1} long']).toHaveLength(121);
    expect(copied['m.long{dc=x,host=h2} long']).toHaveLength(81);
    expect(copied['m.string{host=h1} string']).toHaveLength(31);
    expect(result).toMatchObject({ points: 233, series: 3, mismatches: [] });
    const source = await dump(a, 0, 2 * HOUR);
    for (const id of Object.keys(copied)) expect(copied[id]).toEqual(source[id]);
    await close();
  });

  it('resumes from its state, skipping partitions done; a second full run, and a fresh one, change nothing', async () => {
    const { a, b, options, close } = await populated();
    const plan = await a.findSeries(new IndexLoaders(), 'm.long', ALL_TIME, () => true);
    // As if a run had copied these two partitions, then was killed with a record cut short.
    const first = await copySeries(options({ metrics: ['m.long'] }));
    const done = records(options().statePath).slice(0, 2);
    expect(done).toEqual(plan.partitions.slice(0, 2).map((key) => `{"done":${partitionId(key)}}`));
    const header = readFileSync(options().statePath, 'utf8').split('\n')[0]!;
    writeFileSync(options().statePath, `${header}\n${done.join('\n')}\n{"done":["m.lo`);
    const notices: string[] = [];
    const resumed = await copySeries(options({ metrics: ['m.long'], onNotice: (line) => notices.push(line) }));
    expect(notices).toEqual([`resuming ${options().statePath}: 2 partitions were copied before and are skipped`]);
    expect(resumed).toMatchObject({ skipped: 2, partitions: first.partitions, mismatches: [] });
    expect(resumed.points).toBeLessThan(first.points);
    expect(records(options().statePath)).toHaveLength(first.partitions);
    expect(summary(resumed)).toContain(`(${first.partitions} partitions, 2 of them copied by an earlier run)`);

    const before = await dump(b);
    const again = await copySeries(options({ metrics: ['m.long'] }));
    expect(again).toMatchObject({ points: 0, skipped: first.partitions, mismatches: [] });
    const fresh = await copySeries(options({ metrics: ['m.long'], fresh: true }));
    expect(fresh).toMatchObject({ points: first.points, skipped: 0, mismatches: [] });
    expect(await dump(b)).toEqual(before);
    await close();
  });

  it("refuses another copy's state file unless told to start fresh", async () => {
    const { options, close } = await populated();
    await copySeries(options({ metrics: ['m.long'] }));
    const path = options().statePath;
    await expect(
      copySeries(options({ metrics: ['m.string'], range: { startMs: 0, endMs: 1_700_000_000_000 } })),
    ).rejects.toThrow(
      `the state file ${path} belongs to another copy (--from a --to b --metric "m.long"), not this one (--from a --to b --metric "m.string" --from-time 1970-01-01T00:00:00.000Z --to-time 2023-11-14T22:13:20.000Z): run with its arguments to resume it, or add --fresh to start this one over`,
    );
    appendFileSync(path, 'not json\n');
    await expect(copySeries(options({ metrics: ['m.long'] }))).rejects.toThrow(
      /line \d+ is not a record of npm run copy's state/,
    );
    await expect(copySeries(options({ metrics: ['m.string'], fresh: true }))).resolves.toMatchObject({
      points: 100,
      mismatches: [],
    });
    await close();
  });

  it('writes in batches of at most batchPoints, each validated and of whole series types', async () => {
    const { a, b, options, close } = await populated();
    const sizes: number[] = [];
    const to = wrap(b, {
      write: (batch: WriteBatch) => {
        sizes.push(batch.series.reduce((n, s) => n + s.timestamps.length, 0));
        return b.write(batch);
      },
    });
    await copySeries(options({ to, batchPoints: 64 }));
    expect(Math.max(...sizes)).toBe(64);
    expect(sizes.reduce((x, y) => x + y, 0)).toBe(1010);
    expect(await dump(b)).toEqual(await dump(a));
    await close();
  });

  it('names the series a destination cannot hold, and refuses complex points before writing anything', async () => {
    const { b, options, close } = await populated();
    const narrow = wrap(b, { limits: { ...b.limits, maxRowKeyBytes: 40 } });
    await expect(copySeries(options({ to: narrow, metrics: ['m.double'] }))).rejects.toThrow(
      /^series m\.double\{1=integer-like tag name,host=h1\} cannot be written to "b": tags /,
    );
    const { from } = options();
    const complex = wrap(from, {
      findSeries: async (...args: Parameters<Source['findSeries']>) => {
        const plan = await from.findSeries(...args);
        return {
          ...plan,
          partitions: [
            ...plan.partitions,
            { ...plan.partitions[0]!, dataType: 'kairos_complex', kind: 'complex' } as Partition,
          ],
        };
      },
    });
    await expect(copySeries(options({ from: complex, metrics: ['m.string'], fresh: true }))).rejects.toThrow(
      'metric "m.string" holds complex points (series m.string{host=h1}, data type kairos_complex), which cannot be copied: the write path has no complex type. Name the other metrics with --metric',
    );
    expect(await dump(b)).toEqual({});
    await close();
  });

  it('reads back both sides and names each series that differs', async () => {
    const { b, options, close } = await populated();
    const result = await copySeries(
      options({
        beforeReadBack: async () => {
          const plan = await b.findSeries(new IndexLoaders(), 'm.long', ALL_TIME, (tags) => tags['host'] === 'h2');
          await b.deleteRange(plan.partitions[0]!, 0, 0);
          await b.write({ series: [series('m.string', { host: 'h1' }, 'string', HOUR, 1, 1, () => 'changed')] });
        },
      }),
    );
    expect(result.mismatches.map((m) => m.series)).toEqual(['m.long{dc=x,host=h2}', 'm.string{host=h1}']);
    expect(result.mismatches[0]).toEqual({
      series: 'm.long{dc=x,host=h2}',
      source: '200 points, long sum 19900000, time sum 1791000000',
      destination: '199 points, long sum 19900000, time sum 1791000000',
    });
    expect(result.mismatches[1]!.source).not.toBe(result.mismatches[1]!.destination);
    expect(summary(result).split('\n')).toEqual([
      expect.stringMatching(/; read back: 2 series differ:$/),
      `  m.long{dc=x,host=h2}: source 200 points, long sum 19900000, time sum 1791000000; destination 199 points, long sum 19900000, time sum 1791000000`,
      expect.stringMatching(
        /^ {2}m\.string\{host=h1\}: source 100 points, string digest [0-9a-f]{8}, time sum \d+; destination 100 points, string digest [0-9a-f]{8}, time sum \d+$/,
      ),
    ]);
    // --verify-only copies nothing and finds the same.
    const verified = await copySeries(options({ verifyOnly: true }));
    expect(verified).toMatchObject({ points: 0 });
    expect(verified.mismatches).toEqual(result.mismatches);
    await close();
  });
});

describe('exact sums', () => {
  it('sums doubles correctly rounded whatever the order, and integers exactly at any size', () => {
    const values = [1e100, 1, -1e100, 0.1, 0.2, 0.3, -5e-324, 1e-300, 3.5];
    const sums = [values, [...values].reverse(), [0.3, 1e100, 0.1, -1e100, 3.5, 1, 0.2, 1e-300, -5e-324]].map(
      (list) => {
        const sum = new ExactDoubleSum();
        for (const value of list) sum.add(value);
        return sum.value();
      },
    );
    expect(sums).toEqual([5.1, 5.1, 5.1]);
    const integers = new ExactIntegerSum();
    for (const value of [2 ** 52, 2 ** 52, 8.64e15, -1, 3]) integers.add(value);
    integers.addBig(2n ** 63n - 1n);
    expect(integers.value()).toBe(2n ** 53n + 8_640_000_000_000_000n + 2n + 2n ** 63n - 1n);
  });
});

describe('parseCopyArgs', () => {
  it('reads every option into normalised values', () => {
    expect(
      parseCopyArgs([
        '--from',
        'heroic',
        '--to=kairosdb',
        '--metric',
        'b',
        '--metric',
        'a',
        '--metric',
        'b',
        '--from-time',
        '2024-01-01T00:00:00Z',
        '--to-time',
        '1735689600000',
        '--fresh',
      ]),
    ).toEqual({
      from: 'heroic',
      to: 'kairosdb',
      metrics: ['a', 'b'],
      startMs: 1_704_067_200_000,
      endMs: 1_735_689_600_000,
      statePath: 'kairograph-copy-heroic-to-kairosdb.state',
      fresh: true,
      batchPoints: 10_000,
      verifyOnly: false,
    });
    expect(parseCopyArgs(['--from', 'a', '--to', 'b'])).toMatchObject({
      metrics: undefined,
      startMs: -8.64e15,
      endMs: 8.64e15,
    });
    expect(parseCopyArgs(['--help'])).toBe('help');
  });

  it.each([
    [['--to', 'b'], '--from is required (got "")'],
    [['--from', 'a', '--to', 'a'], '--to must not be the source --from names (got "a")'],
    [
      ['--from', 'a', '--to', 'b', '--from-time', 'yesterday'],
      '--from-time must be ISO-8601 text or epoch milliseconds from -8640000000000000 to 8640000000000000 (got "yesterday")',
    ],
    [
      ['--from', 'a', '--to', 'b', '--to-time', 'now-1h'],
      '--to-time must be ISO-8601 text or epoch milliseconds from -8640000000000000 to 8640000000000000 (got "now-1h")',
    ],
    [
      ['--from', 'a', '--to', 'b', '--from-time', '2000', '--to-time', '1000'],
      '--to-time must not be before --from-time (got "1000")',
    ],
    [
      ['--from', 'a', '--to', 'b', '--batch-points', '0'],
      '--batch-points must be a whole number from 1 to 1000000 (got "0")',
    ],
    [['--from', 'a', '--to', 'b', '--metric', ''], '--metric must not be empty (got "")'],
    [['--from', 'a', '--to', 'b', '--metric'], '--metric needs a value'],
    [['--from', 'a', '--from', 'c', '--to', 'b'], '--from is given twice (got "a" and "c")'],
    [['--from', 'a', '--to', 'b', '--fresh=yes'], '--fresh takes no value (got "yes")'],
    [
      ['--from', 'a', '--to', 'b', '--metrics', 'x'],
      'unknown argument "--metrics" (options: --from, --to, --metric, --from-time, --to-time, --state, --batch-points, --fresh, --verify-only, --help)',
    ],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseCopyArgs(argv)).toThrow(message);
  });
});

/** `source` with some members replaced. */
function wrap(source: Source, members: Record<string, unknown>): Source {
  return new Proxy(source, {
    get: (target, name, receiver) =>
      typeof name === 'string' && name in members ? members[name] : Reflect.get(target, name, receiver),
  });
}
