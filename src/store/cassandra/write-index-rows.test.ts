/**
 * The index rows a write leaves out because the written index remembers them, on the stand-in executor: rows written
 * before are not sent again, a failed index batch's rows are, rows are written again when the cells outlive them or
 * the age limit passed, a write acknowledged after a drop remembers nothing, and tag index rows are remembered per
 * series and tag=value.
 */
import { describe, expect, it } from 'vitest';
import { NO_TAG_INDEX, parseTagIndexConfig } from '../tag-index.js';
import type { StatementName } from './statements.js';
import { writePartitions, type WriteOptions } from './write.js';
import { WrittenIndex } from './written-index.js';
import { flush, MS, recorder, series, st, TS, type Sent } from '../../../test/support/write-recorder.js';

describe('a write with a written index', () => {
  /**
   * Runs a write to its end, settling each batch as it is sent (failing those `fail` picks); returns what it sent as
   * [name, statements or cells] and how it ended.
   */
  async function drive(
    sent: Sent[],
    write: () => Promise<void>,
    fail: (s: Sent) => Error | undefined = () => undefined,
  ): Promise<{ batches: [StatementName, number][]; error: unknown }> {
    const from = sent.length;
    let done = false;
    let error: unknown;
    write().then(
      () => (done = true),
      (e: unknown) => {
        done = true;
        error = e;
      },
    );
    let settled = from;
    while (!done) {
      await flush();
      while (settled < sent.length) {
        const s = sent[settled++]!;
        s.settle(fail(s));
      }
    }
    return {
      batches: sent.slice(from).map((s) => [s.name, s.statements?.length ?? s.cells!.count]),
      error,
    };
  }

  const options = (written: WrittenIndex, tagIndex = NO_TAG_INDEX): WriteOptions => ({
    encoder: 'lean',
    tagIndex,
    written,
  });

  function clocked(maxAgeMs = 300_000): { written: WrittenIndex; clock: { t: number } } {
    const clock = { t: TS };
    return { written: new WrittenIndex({ maxEntries: 100, maxAgeMs, now: () => clock.t }), clock };
  }

  it("sends no index row a second time while it is remembered, and a new series' row_keys row alone", async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const write = (...hosts: string[]) =>
      drive(sent, () =>
        writePartitions(
          exec,
          st,
          MS,
          { series: hosts.map((h, i) => series('cpu', h, [100 + i])) },
          TS,
          options(written),
        ),
      );
    expect((await write('a', 'b')).batches).toEqual([
      ['row_keys.insert', 2],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 2],
    ]);
    expect((await write('a', 'b')).batches).toEqual([['data_points.insert', 2]]);
    const third = sent.length;
    expect((await write('a', 'c')).batches).toEqual([
      ['row_keys.insert', 1],
      ['data_points.insert', 2],
    ]);
    expect(Object.fromEntries(sent[third]!.statements![0]!.params[4] as Map<string, string>)).toEqual({ host: 'c' });
  });

  it('sends again the rows of an index batch that failed, and only those', async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const batch = { series: [series('cpu', 'a', [1]), series('cpu', 'b', [2])] };
    const failure = new Error('write timeout');
    const first = await drive(
      sent,
      () => writePartitions(exec, st, MS, batch, TS, options(written)),
      (s) => (s.name === 'row_keys.insert' ? failure : undefined),
    );
    expect(first).toEqual({
      batches: [
        ['row_keys.insert', 2],
        ['row_key_time_index.insert', 1],
        ['string_index.insert', 1],
      ],
      error: failure,
    });
    expect((await drive(sent, () => writePartitions(exec, st, MS, batch, TS, options(written)))).batches).toEqual([
      ['row_keys.insert', 2],
      ['data_points.insert', 2],
    ]);
  });

  it('writes the rows again when the cells outlive them, and every row once the age limit passed', async () => {
    const { exec, sent } = recorder();
    const { written, clock } = clocked();
    const write = (ttlSeconds: number) =>
      drive(sent, () =>
        writePartitions(exec, st, MS, { series: [series('cpu', 'a', [1], ttlSeconds)] }, TS, options(written)),
      );
    await write(3600);
    expect((await write(3600)).batches).toEqual([['data_points.insert', 1]]);
    // Cells that never expire need rows that never expire; the name never expires.
    const forever = sent.length;
    expect((await write(0)).batches).toEqual([
      ['row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['data_points.insert', 1],
    ]);
    expect(sent.slice(forever, forever + 2).map((s) => s.statements!.map((q) => q.params.at(-1)))).toEqual([[0], [0]]);
    expect((await write(3600)).batches).toEqual([['data_points.insert', 1]]);
    clock.t = TS + 300_000;
    expect((await write(3600)).batches).toEqual([
      ['row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 1],
    ]);
  });

  it('remembers nothing of a write whose index rows were acknowledged after a drop began', async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const batch = { series: [series('cpu', 'a', [1])] };
    await drive(sent, async () => {
      const first = writePartitions(exec, st, MS, batch, TS, options(written));
      written.drop([]);
      await first;
    });
    expect((await drive(sent, () => writePartitions(exec, st, MS, batch, TS, options(written)))).batches).toEqual([
      ['row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 1],
    ]);
  });

  it('remembers tag_indexed_row_keys rows per series and tag=value', async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const tagIndex = parseTagIndexConfig({ cpu: ['host', 'dc'] });
    const write = (dc: string) =>
      drive(sent, () =>
        writePartitions(
          exec,
          st,
          MS,
          { series: [{ ...series('cpu', 'a', [1]), tags: { host: 'a', dc } }] },
          TS,
          options(written, tagIndex),
        ),
      );
    expect((await write('x')).batches).toEqual([
      ['row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 1],
    ]);
    expect((await write('x')).batches).toEqual([['data_points.insert', 1]]);
    // Another series: its own row_keys row and both of its tag rows, host=a's partition holding the new series too.
    expect((await write('y')).batches).toEqual([
      ['row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['data_points.insert', 1],
    ]);
  });
});
