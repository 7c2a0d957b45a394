/**
 * The lean page decoder's hook on the driver's own connection machinery (Connection, Protocol, Parser,
 * ResultEmitter, OperationState of cassandra-driver 4.10.0) with a fake socket: which frames it takes, what the
 * request completes with, errors and chunking. It fails when a driver upgrade moves or changes what the hook relies
 * on; lean-page-slices.test.ts checks, over the same connection, that its slices are bit for bit the driver's own.
 */
import { readFileSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import {
  BLOB,
  Connection,
  fakeConnection,
  KEYSPACE,
  optionsOf,
  rowsFrame,
  SCAN_COLUMNS,
  TEXT,
  type DriverResult,
  type FakeConnection,
  type FrameSpec,
} from '../../../test/support/fake-driver-connection.js';
import {
  HOOKED_DRIVER_VERSION,
  driverParser,
  installLeanPageHook,
  leanHookProblem,
} from '../cassandra-client/lean-page-hook.js';
import { leanPagesEncoding } from './lean-pages.js';
import { ScanRows } from './scan-rows.js';

installLeanPageHook();

const hex = (h: string) => Buffer.from(h, 'hex');

describe('the pinned driver', () => {
  it('is the release the hook was written against, pinned exactly in package.json and the lockfile', () => {
    const root = new URL('../../../', import.meta.url);
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    expect(HOOKED_DRIVER_VERSION).toBe('4.10.0');
    expect(String((cassandra as unknown as { version: unknown }).version)).toBe(HOOKED_DRIVER_VERSION);
    expect(pkg.dependencies['cassandra-driver']).toBe(HOOKED_DRIVER_VERSION);
    expect(lock.packages['node_modules/cassandra-driver']!.version).toBe(HOOKED_DRIVER_VERSION);
  });

  it('refuses another release or a parser without what the hook calls, naming the way out', () => {
    const prototype = driverParser().prototype;
    expect(leanHookProblem('4.10.0', prototype)).toBeUndefined();
    expect(leanHookProblem('4.11.0', prototype)).toBe(
      "the lean page decoder hooks cassandra-driver 4.10.0's result parser, but 4.11.0 is installed: make " +
        'src/store/cassandra/lean-page-hook.test.ts pass on it and update HOOKED_DRIVER_VERSION, or set CASSANDRA_SCAN_DECODER=driver',
    );
    expect(leanHookProblem('4.10.0', { push: prototype.push, handleParsingError: prototype.handleParsingError })).toBe(
      "the lean page decoder needs cassandra-driver's Parser.prototype.parseRows, which 4.10.0 does not have",
    );
  });

  it('installs once, whatever the number of stores', () => {
    const hooked = driverParser().prototype.parseRows;
    installLeanPageHook();
    expect(driverParser().prototype.parseRows).toBe(hooked);
  });

  it("carries the opt-in from the client's options to every connection's parser by reference", () => {
    const encoding = leanPagesEncoding(KEYSPACE);
    const client = new cassandra.Client({
      contactPoints: ['127.0.0.1'],
      localDataCenter: 'dc1',
      encoding: { map: Map, ...encoding } as cassandra.ClientOptions['encoding'],
    });
    const connection = new Connection('127.0.0.1:9042', 4, optionsOf(client)) as unknown as {
      encoder: { encodingOptions: Record<string, unknown> };
    };
    expect(connection.encoder.encodingOptions['kairographLeanPages']).toBe(encoding['kairographLeanPages']);
    expect(connection.encoder.encodingOptions['map']).toBe(Map);
  });
});

describe('frames through a connection', () => {
  it('completes a scan page with its raw rows and keeps the page state', async () => {
    const conn = fakeConnection(true);
    const pageState = Buffer.from('0102ff', 'hex');
    const result = await conn.exchange(
      rowsFrame({
        columns: SCAN_COLUMNS,
        rows: [
          [hex('00000001'), hex('3ff8000000000000')],
          [hex('00000002'), null],
        ],
        pageState,
      }),
    );
    expect(result.rows).toBeInstanceOf(ScanRows);
    const rows = result.rows as ScanRows;
    expect(rows.length).toBe(2);
    expect(rows.buf.subarray(rows.start, rows.end).toString('hex')).toBe(
      '00000004' + '00000001' + '00000008' + '3ff8000000000000' + '00000004' + '00000002' + 'ffffffff',
    );
    const ResultSet = (
      cassandra.types as unknown as { ResultSet: new (...args: unknown[]) => cassandra.types.ResultSet }
    ).ResultSet;
    const resultSet = new ResultSet(result, '127.0.0.1:9042', {}, 0, 1, true);
    expect(resultSet.rows).toBe(rows);
    expect(resultSet.rowLength).toBe(2);
    expect((resultSet as unknown as { rawPageState: Buffer }).rawPageState).toEqual(pageState);
  });

  it('names keyspace and table per column as well as once for all (global_tables_spec)', async () => {
    const conn = fakeConnection(true);
    const result = await conn.exchange(
      rowsFrame({ columns: SCAN_COLUMNS, rows: [[hex('00000001'), hex('01')]], globalSpec: false }),
    );
    expect(result.rows).toBeInstanceOf(ScanRows);
  });

  it('leaves every other result to the driver: other columns, other tables, other keyspaces, clients that did not opt in', async () => {
    const lean = fakeConnection(true);
    const rowsOf = async (conn: FakeConnection, frame: FrameSpec) =>
      (await conn.exchange(rowsFrame(frame))).rows as cassandra.types.Row[];
    const spec = await rowsOf(lean, {
      columns: [['value', TEXT]],
      rows: [[Buffer.from('MILLISECONDS')]],
      table: 'spec',
    });
    expect(spec.map((r) => r['value'])).toEqual(['MILLISECONDS']);
    const oneColumn = await rowsOf(lean, { columns: [['column1', BLOB]], rows: [[hex('00000001')]] });
    expect(oneColumn.map((r) => r['column1'])).toEqual([hex('00000001')]);
    const legacyIndex = await rowsOf(lean, {
      columns: SCAN_COLUMNS,
      rows: [[hex('00000001'), hex('02')]],
      table: 'row_key_index',
    });
    expect(legacyIndex.map((r) => [r['column1'], r['value']])).toEqual([[hex('00000001'), hex('02')]]);
    const otherKeyspace = await rowsOf(lean, {
      columns: SCAN_COLUMNS,
      rows: [[hex('00000001'), hex('02')]],
      keyspace: 'other',
    });
    expect(otherKeyspace).toHaveLength(1);
    const textValue = await rowsOf(lean, {
      columns: [
        ['column1', BLOB],
        ['value', TEXT],
      ],
      rows: [[hex('00000001'), Buffer.from('x')]],
    });
    expect(textValue.map((r) => r['value'])).toEqual(['x']);
    const stock = await rowsOf(fakeConnection(false), { columns: SCAN_COLUMNS, rows: [[hex('00000001'), hex('02')]] });
    expect(stock.map((r) => [r['column1'], r['value']])).toEqual([[hex('00000001'), hex('02')]]);
  });

  it('hands over an empty page as empty raw rows', async () => {
    const result = await fakeConnection(true).exchange(rowsFrame({ columns: SCAN_COLUMNS, rows: [] }));
    expect(result.rows).toBeInstanceOf(ScanRows);
    expect((result.rows as ScanRows).length).toBe(0);
  });

  it('parses frames that arrive a byte at a time, and several frames in one chunk', async () => {
    const conn = fakeConnection(true);
    const frame = rowsFrame({ columns: SCAN_COLUMNS, rows: [[hex('00000007'), hex('0a')]] });
    const split = await conn.exchange(
      frame,
      [...frame].map((_, i) => i + 1),
    );
    expect((split.rows as ScanRows).buf.subarray((split.rows as ScanRows).start).toString('hex')).toBe(
      '0000000400000007000000010a',
    );
    const [first, second] = await conn.exchangeMany([
      rowsFrame({ columns: SCAN_COLUMNS, rows: [[hex('00000001'), hex('02')]] }),
      rowsFrame({ columns: SCAN_COLUMNS, rows: [[hex('00000003'), hex('04')]] }),
    ]);
    expect([first, second].map((r) => (r!.rows as ScanRows).length)).toEqual([1, 1]);
    const cells = (r: DriverResult) => {
      const rows = r.rows as ScanRows;
      return rows.buf.subarray(rows.start, rows.end).toString('hex');
    };
    expect(cells(first!)).toBe('00000004000000010000000102');
    expect(cells(second!)).toBe('00000004000000030000000104');
  });

  it("fails a malformed page as the driver's own parse errors do, and the connection goes on", async () => {
    const conn = fakeConnection(true);
    const short = rowsFrame({ columns: SCAN_COLUMNS, rows: [[hex('000001'), hex('02')]] });
    await expect(conn.exchange(short)).rejects.toThrow(
      'data_points page is malformed: row 0 of 1: its column1 has 3 bytes, not 4',
    );
    const truncated = rowsFrame({ columns: SCAN_COLUMNS, rows: [[hex('00000001'), hex('02')]], rowCount: 2 });
    await expect(conn.exchange(truncated)).rejects.toThrow(
      'data_points page is malformed: row 1 of 2: its column1 length is past the end of the frame',
    );
    const after = await conn.exchange(rowsFrame({ columns: SCAN_COLUMNS, rows: [[hex('00000001'), hex('02')]] }));
    expect((after.rows as ScanRows).length).toBe(1);
  });

  it('leaves requests parsed row by row (eachRow, stream) to the driver', async () => {
    const conn = fakeConnection(true);
    const rows: unknown[] = [];
    await conn.exchange(
      rowsFrame({
        columns: SCAN_COLUMNS,
        rows: [
          [hex('00000001'), hex('02')],
          [hex('00000002'), hex('03')],
        ],
      }),
      undefined,
      (_, row) => rows.push(row),
    );
    expect(rows.map((r) => (r as cassandra.types.Row)['value'])).toEqual([hex('02'), hex('03')]);
  });
});
