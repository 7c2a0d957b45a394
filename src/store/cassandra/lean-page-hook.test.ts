/**
 * The lean page decoder's hook on the driver's own connection machinery (Connection, Protocol, Parser,
 * ResultEmitter, OperationState of cassandra-driver 4.10.0) with a fake socket: which frames it takes, what the
 * request completes with, errors, chunking, and slices bit for bit equal to the driver's own decoding of the same
 * bytes. It fails when a driver upgrade moves or changes what the hook relies on.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Duplex } from 'node:stream';
import cassandra from 'cassandra-driver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sliceBits, type SliceBits } from '../../../test/support/slice-bits.js';
import { columnOf, typedCells } from '../../../test/support/cell-arbitraries.js';
import { encodeLegacyLong, encodeLong } from '../format/index.js';
import { SliceBuilder } from '../slice-builder.js';
import type { RowKey, RowSpec } from '../store.js';
import type { Slice } from '../../model/series.js';
import {
  HOOKED_DRIVER_VERSION,
  driverParser,
  installLeanPageHook,
  leanHookProblem,
} from '../cassandra-client/lean-page-hook.js';
import { leanPagesEncoding } from './lean-pages.js';
import { driverRowSlices } from './scan.js';
import { ScanRows } from './scan-rows.js';

const require = createRequire(import.meta.url);
const Connection = require('cassandra-driver/lib/connection.js') as new (
  endpoint: string,
  version: number,
  options: object,
) => DriverConnection;
const requests = require('cassandra-driver/lib/requests.js') as {
  QueryRequest: new (query: string, params: null, options: null) => object;
};

/** What the test drives of lib/connection.js: the same calls the driver's request path makes. */
interface DriverConnection {
  netClient: Duplex;
  readonly _operations: Map<number, unknown>;
  bindSocketListeners(): void;
  sendStream(
    request: object,
    execOptions: null,
    callback: (error: Error | null, result?: DriverResult) => void,
  ): { streamId: number };
}

/** What OperationState completes a request with, and the ResultSet the driver builds from it. */
interface DriverResult {
  readonly rows?: unknown;
  readonly meta?: { readonly pageState?: Buffer };
}

const KEYSPACE = 'kg_hook';
const BLOB = 0x0003;
const TEXT = 0x000d;
const SCAN_COLUMNS: [string, number][] = [
  ['column1', BLOB],
  ['value', BLOB],
];

installLeanPageHook();

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

describe('slices from raw rows and from the driver', () => {
  it('are equal bit for bit on every value type, page size and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(partitionArbitrary(), async (partition) => {
        const lean = await decodeThrough(fakeConnection(true), partition);
        const stock = await decodeThrough(fakeConnection(false), partition);
        expect(lean.pages.every((p) => p instanceof ScanRows)).toBe(true);
        expect(stock.pages.every((p) => Array.isArray(p))).toBe(true);
        expect(lean.slices).toEqual(stock.slices);
        expect(lean.slices.reduce((n, s) => n + Buffer.from(s.timestamps, 'hex').length / 8, 0)).toBe(
          partition.cells.length,
        );
      }),
      { numRuns: 150 },
    );
  });

  it('keep the exact long at the edges of 64 bits and past ±2^53', async () => {
    const longs = [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n, -(2n ** 53n), 2n ** 53n - 1n, 0n, -1n];
    const partition: Partition = {
      key: keyOf('kairos_long'),
      spec: MS,
      cells: longs.map((v, i) => [i, Buffer.from(encodeLong(v))]),
      pageSizes: [3, 4],
      sliceSize: 5,
      chunks: [],
    };
    const { pages, slices } = await decodeThrough(fakeConnection(true), partition);
    expect(pages.map((p) => p instanceof ScanRows)).toEqual([true, true]);
    // Only the first slice holds a long past ±(2^53-1), so only it carries exact values.
    expect(slices.map((s) => s.exact)).toEqual([longs.slice(0, 5), undefined]);
    expect(slices[1]!.values).toBe(hexOfDoubles([0, -1]));
    expect(slices.map((s) => s.allocated)).toEqual([
      [5, 5, 5],
      [5, 5],
    ]);
  });

  it('decode a value the driver hands over as null as an empty one (a kairos_legacy long 0)', async () => {
    const partition: Partition = {
      key: keyOf('kairos_legacy'),
      spec: MS,
      cells: [
        [0, null],
        [2, Buffer.from(encodeLegacyLong(7))],
      ],
      pageSizes: [2],
      sliceSize: 8,
      chunks: [],
    };
    const lean = await decodeThrough(fakeConnection(true), partition);
    expect(lean.slices.map((s) => s.values)).toEqual([hexOfDoubles([0, 7])]);
    expect(lean.slices).toEqual((await decodeThrough(fakeConnection(false), partition)).slices);
  });

  it('refuse a value too short for its type as the driver path does', async () => {
    const partition: Partition = {
      key: keyOf('kairos_double'),
      spec: MS,
      cells: [[0, hex('3ff80000000000')]],
      pageSizes: [1],
      sliceSize: 8,
      chunks: [],
    };
    await expect(decodeThrough(fakeConnection(true), partition)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 7',
    );
    await expect(decodeThrough(fakeConnection(false), partition)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 7',
    );
    // A null double after a good one, on a later slice.
    const nulled: Partition = {
      key: keyOf('kairos_double'),
      spec: MS,
      cells: [
        [0, hex('3ff8000000000000')],
        [1, null],
      ],
      pageSizes: [2],
      sliceSize: 1,
      chunks: [],
    };
    await expect(decodeThrough(fakeConnection(true), nulled)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 0',
    );
    await expect(decodeThrough(fakeConnection(false), nulled)).rejects.toThrow(
      'double value is truncated: needs 8 bytes, has 0',
    );
  });
});

interface FakeConnection {
  /** Sends a request and answers it with `frame` (re-addressed to the request's stream), pushed in pieces ending at `cuts`. */
  exchange(frame: Buffer, cuts?: number[], onRow?: (index: number, row: unknown) => void): Promise<DriverResult>;
  /** Sends one request per frame and answers them all in one chunk. */
  exchangeMany(frames: Buffer[]): Promise<DriverResult[]>;
}

/** A driver Connection on a socket the test plays the node on, with or without the store's opt-in. */
function fakeConnection(lean: boolean): FakeConnection {
  const encoding = { map: Map, ...(lean ? leanPagesEncoding(KEYSPACE) : {}) } as cassandra.ClientOptions['encoding'];
  const client = new cassandra.Client({ contactPoints: ['127.0.0.1'], localDataCenter: 'dc1', encoding });
  const connection = new Connection('127.0.0.1:9042', 4, optionsOf(client));
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
  connection.netClient = socket;
  connection.bindSocketListeners();
  const send = (onRow?: (index: number, row: unknown) => void) => {
    let streamId = -1;
    const done = new Promise<DriverResult>((resolve, reject) => {
      const request = new requests.QueryRequest(`SELECT column1, value FROM ${KEYSPACE}.data_points`, null, null);
      // eachRow's execution options, reduced to what the connection asks of them.
      const rowOptions = onRow && { getRowCallback: () => onRow, getReadTimeout: () => undefined };
      streamId = connection.sendStream(request, (rowOptions ?? null) as null, (error, result) =>
        error ? reject(error) : resolve(result!),
      ).streamId;
    });
    return { streamId, done };
  };
  const written = async (ids: number[]) => {
    while (!ids.every((id) => connection._operations.has(id))) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    async exchange(frame, cuts = [], onRow) {
      const { streamId, done } = send(onRow);
      await written([streamId]);
      const bytes = readdressed(frame, streamId);
      let from = 0;
      for (const cut of [...cuts, bytes.length]) {
        if (cut > from) socket.push(bytes.subarray(from, cut));
        from = Math.max(from, cut);
      }
      return done;
    },
    async exchangeMany(frames) {
      const sent = frames.map(() => send());
      await written(sent.map((s) => s.streamId));
      socket.push(Buffer.concat(frames.map((f, i) => readdressed(f, sent[i]!.streamId))));
      return Promise.all(sent.map((s) => s.done));
    },
  };
}

/** The options a Client hands its connections, defaults filled in (`client.options` is not in the typings). */
function optionsOf(client: cassandra.Client): object {
  return (client as unknown as { options: object }).options;
}

interface FrameSpec {
  readonly columns: [string, number][];
  readonly rows: (Buffer | null)[][];
  readonly keyspace?: string;
  readonly table?: string;
  readonly pageState?: Buffer;
  readonly globalSpec?: boolean;
  /** The rows count the frame claims, when it should lie. */
  readonly rowCount?: number;
}

/** A protocol v4 RESULT frame of kind ROWS, as Cassandra sends it (no skip_metadata: the driver never asks for it). */
function rowsFrame(f: FrameSpec): Buffer {
  const parts: Buffer[] = [];
  const int = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    parts.push(b);
  };
  const short = (n: number) => {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(n);
    parts.push(b);
  };
  const string = (s: string) => {
    short(Buffer.byteLength(s));
    parts.push(Buffer.from(s));
  };
  const bytes = (b: Buffer | null) => {
    int(b === null ? -1 : b.length);
    if (b !== null) parts.push(b);
  };
  const keyspace = f.keyspace ?? KEYSPACE;
  const table = f.table ?? 'data_points';
  const global = f.globalSpec ?? true;
  int(2); // ROWS
  int((global ? 0x0001 : 0) | (f.pageState ? 0x0002 : 0));
  int(f.columns.length);
  if (f.pageState) bytes(f.pageState);
  if (global) {
    string(keyspace);
    string(table);
  }
  for (const [name, type] of f.columns) {
    if (!global) {
      string(keyspace);
      string(table);
    }
    string(name);
    short(type);
  }
  int(f.rowCount ?? f.rows.length);
  for (const row of f.rows) for (const cell of row) bytes(cell);
  const body = Buffer.concat(parts);
  const header = Buffer.from([0x84, 0, 0, 0, 0x08, 0, 0, 0, 0]);
  header.writeInt32BE(body.length, 5);
  return Buffer.concat([header, body]);
}

function readdressed(frame: Buffer, streamId: number): Buffer {
  const copy = Buffer.from(frame);
  copy.writeInt16BE(streamId, 2);
  return copy;
}

/** One partition as pages of a scan: cells (column, value bytes or null) cut into pages, each page's frame into chunks. */
interface Partition {
  readonly key: RowKey;
  readonly spec: RowSpec;
  readonly cells: [number, Buffer | null][];
  /** Rows per page, cycled until the cells run out. */
  readonly pageSizes: number[];
  /** Points per slice (ScanOptions.pageSize). */
  readonly sliceSize: number;
  /** Where each frame is cut, as fractions of its length. */
  readonly chunks: number[];
}

/** Sends the partition's pages through `conn` and decodes what comes back as scan.ts does, into one builder. */
async function decodeThrough(
  conn: FakeConnection,
  partition: Partition,
): Promise<{ pages: unknown[]; slices: SliceBits[] }> {
  const pages: unknown[] = [];
  const slices: Slice[] = [];
  const builder = new SliceBuilder(partition.key, partition.spec, partition.sliceSize);
  for (let at = 0, p = 0; at < partition.cells.length || p === 0; p++) {
    const size = partition.pageSizes[p % partition.pageSizes.length]!;
    const cells = partition.cells.slice(at, at + size);
    at += size;
    const last = at >= partition.cells.length;
    const frame = rowsFrame({
      columns: SCAN_COLUMNS,
      rows: cells.map(([column, value]) => [columnBytes(column), value]),
      ...(last ? {} : { pageState: Buffer.from([p]) }),
    });
    const result = await conn.exchange(
      frame,
      partition.chunks.map((f) => Math.floor(f * frame.length)),
    );
    pages.push(result.rows);
    const rows = result.rows as ScanRows | cassandra.types.Row[];
    for (const slice of rows instanceof ScanRows ? rows.slices(builder) : driverRowSlices(rows, builder))
      slices.push(slice);
    if (last) break;
  }
  const rest = builder.flush();
  if (rest !== undefined) slices.push(rest);
  return { pages, slices: slices.map(sliceBits) };
}

const MS: RowSpec = { unit: 'MILLISECONDS', width: 1_814_400_000 };
const keyOf = (dataType: string, rowTime = 1_435_190_400_000): RowKey => ({
  metric: 'm',
  rowTime,
  dataType,
  tags: { host: 'a' },
});
const hex = (h: string) => Buffer.from(h, 'hex');
const hexOfDoubles = (values: number[]) => Buffer.from(Float64Array.from(values).buffer).toString('hex');

function columnBytes(column: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(column);
  return b;
}

function partitionArbitrary(): fc.Arbitrary<Partition> {
  const spec = fc.constantFrom<RowSpec>(
    MS,
    { unit: 'SECONDS', width: 1_814_400 },
    { unit: 'LEGACY', width: 1_814_400_000 },
  );
  const layout = fc.record({
    spec,
    rowTime: fc.constantFrom(0, 1_435_190_400_000, -2),
    // Late in a row, shifted columns (LEGACY unit, kairos_legacy rows) pass 2^31.
    base: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_800_000_000 })),
    steps: fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 40, maxLength: 40 }),
    pageSizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 }),
    sliceSize: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constant(4096)),
    chunks: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }).map((c) => c.sort((a, b) => a - b)),
  });
  return fc.tuple(layout, typedCells(40)).map(([l, { dataType, cells }]) => {
    let offset = l.base;
    const shifted = dataType === 'kairos_legacy' || l.spec.unit === 'LEGACY';
    const partitionCells = cells.map(({ flag, value }, i): [number, Buffer | null] => {
      offset += l.steps[i]!;
      return [columnOf(offset, flag, shifted), value];
    });
    return {
      key: keyOf(dataType, l.rowTime),
      spec: l.spec,
      cells: partitionCells,
      pageSizes: l.pageSizes,
      sliceSize: l.sliceSize,
      chunks: l.chunks,
    };
  });
}
