/**
 * The lean batch encoder's hook on cassandra-driver 4.10.0's BatchRequest: frames byte for byte equal to the stock
 * writer's for the same cells on every protocol version and option the writer reads, the driver steps between
 * Client.batch and the writer that the cells must pass untouched (named-parameter adaptation, routing), a real
 * Connection's write queue, and refusals. It fails when a driver upgrade moves or changes what the hook relies on.
 */
import { createRequire } from 'node:module';
import { Duplex } from 'node:stream';
import cassandra from 'cassandra-driver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TTL_SECONDS } from '../../sources/write-validation.js';
import {
  PointCells,
  driverBatchRequest,
  installLeanBatchHook,
  leanBatchHookProblem,
  type CellRun,
} from './lean-batch-hook.js';
import { HOOKED_DRIVER_VERSION } from '../cassandra-client/lean-page-hook.js';

const require = createRequire(import.meta.url);
const { BatchRequest } = require('cassandra-driver/lib/requests.js') as {
  BatchRequest: new (queries: QueryItem[], options: ExecutionOptions) => DriverBatch;
};
const Encoder = require('cassandra-driver/lib/encoder.js') as new (version: number, options: object) => DriverEncoder;
const { DefaultExecutionOptions } = require('cassandra-driver/lib/execution-options.js') as {
  DefaultExecutionOptions: { create(options: object, client: cassandra.Client): ExecutionOptions };
};
const { adaptNamedParamsPrepared } = require('cassandra-driver/lib/utils.js') as {
  adaptNamedParamsPrepared(params: unknown, columns: unknown): unknown;
};
const Connection = require('cassandra-driver/lib/connection.js') as new (
  endpoint: string,
  version: number,
  options: object,
) => DriverConnection;

/** A prepared query item as PrepareHandler.getPreparedMultiple hands it to BatchRequest. */
interface QueryItem {
  readonly query: string;
  readonly params: unknown[];
  readonly queryId: Buffer;
  readonly meta: PreparedMeta;
}

interface PreparedMeta {
  readonly columns: { name: string; type: { code: number; type: null } }[];
  readonly partitionKeys: number[];
  readonly keyspace: string;
}

interface DriverBatch {
  readonly length: number;
  write(encoder: DriverEncoder, streamId: number): Buffer;
}

interface DriverEncoder {
  setRoutingKeyFromMeta(meta: PreparedMeta, params: unknown[], options: ExecutionOptions): void;
}

interface ExecutionOptions {
  setRoutingIndexes(indexes: number[]): void;
  getRoutingKey(): Buffer | undefined;
}

interface DriverConnection {
  netClient: Duplex;
  bindSocketListeners(): void;
  sendStream(request: object, execOptions: null, callback: (error: Error | null) => void): { streamId: number };
}

const { dataTypes, protocolVersion } = cassandra.types;
const INSERT = 'INSERT INTO kg_hook.data_points (key, column1, value) VALUES (?, ?, ?) USING TTL ?';
/** What Cassandra answers when the insert is prepared: its bound variables, the key routing. */
const META: PreparedMeta = {
  columns: [
    { name: 'key', type: { code: dataTypes.blob, type: null } },
    { name: 'column1', type: { code: dataTypes.blob, type: null } },
    { name: 'value', type: { code: dataTypes.blob, type: null } },
    { name: '[ttl]', type: { code: dataTypes.int, type: null } },
  ],
  partitionKeys: [0],
  keyspace: 'kg_hook',
};
const QUERY_ID = Buffer.from('5f0e3d1c2b2a49887766554433221100', 'hex');

installLeanBatchHook();

describe('the pinned driver', () => {
  it('is the release the hook was written against', () => {
    expect(String((cassandra as unknown as { version: unknown }).version)).toBe(HOOKED_DRIVER_VERSION);
  });

  it('refuses another release or a BatchRequest without a writer, naming the way out', () => {
    const prototype = driverBatchRequest().prototype;
    expect(leanBatchHookProblem('4.10.0', prototype)).toBeUndefined();
    expect(leanBatchHookProblem('4.11.0', prototype)).toBe(
      "the lean batch encoder hooks cassandra-driver 4.10.0's batch request writer, but 4.11.0 is installed: make " +
        'src/store/cassandra/lean-batch-hook.test.ts pass on it and update HOOKED_DRIVER_VERSION, or set CASSANDRA_WRITE_ENCODER=driver',
    );
    expect(leanBatchHookProblem('4.10.0', {})).toBe(
      "the lean batch encoder needs cassandra-driver's BatchRequest.prototype.write, which 4.10.0 does not have",
    );
  });

  it('installs once, whatever the number of stores', () => {
    const hooked = driverBatchRequest().prototype.write;
    installLeanBatchHook();
    expect(driverBatchRequest().prototype.write).toBe(hooked);
    expect(driverBatchRequest()).toBe(BatchRequest);
  });
});

describe('a batch of PointCells', () => {
  it('is written byte for byte as the stock writer writes one prepared item per cell, on every protocol version and option', () => {
    fc.assert(
      fc.property(
        cellsArbitrary(),
        optionsArbitrary(),
        fc.integer({ min: 0, max: 32767 }),
        (cells, { version, options }, streamId) => {
          const client = new cassandra.Client({ contactPoints: ['127.0.0.1'], localDataCenter: 'dc1' });
          const encoder = new Encoder(version, optionsOf(client));
          const lean = new BatchRequest(
            [{ query: INSERT, params: cells.point.params, queryId: QUERY_ID, meta: META }],
            DefaultExecutionOptions.create(options, client),
          );
          const stock = new BatchRequest(stockItems(cells), DefaultExecutionOptions.create(options, client));
          const written = lean.write(encoder, streamId);
          expect(written.toString('hex')).toBe(stock.write(encoder, streamId).toString('hex'));
          expect(lean.length).toBe(stock.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lays out each cell as the protocol reads a prepared statement: id, 4 values, key, column1, value, TTL', () => {
    const key = Buffer.from('6d00', 'hex');
    const values = [Uint8Array.of(0x3f), new Uint8Array(0)];
    // The second run, another partition's with a longer key, starts at its second cell: each cell carries its key.
    const other = { key: Buffer.from('6e0001', 'hex'), columns: [9, 7], values: [Uint8Array.of(1), Uint8Array.of(2)] };
    const cells = new PointCells([
      { key, columns: [0, 0xffffffff], values, ttls: [0, MAX_TTL_SECONDS], from: 0, to: 2 },
      { ...other, ttls: [5, 6], from: 1, to: 2 },
    ]);
    const id = Buffer.from('abcd', 'hex');
    expect(cells.count).toBe(3);
    expect(cells.key).toBe(key);
    const expected = [
      ['01', '0002 abcd', '0004', '00000002 6d00', '00000004 00000000', '00000001 3f', '00000004 00000000'],
      ['01', '0002 abcd', '0004', '00000002 6d00', '00000004 ffffffff', '00000000', '00000004 25980600'],
      ['01', '0002 abcd', '0004', '00000003 6e0001', '00000004 00000007', '00000001 02', '00000004 00000006'],
    ];
    expect(cells.statements(id).toString('hex')).toBe(expected.flat().join('').replaceAll(' ', ''));
    // An id of 16 bytes, as Cassandra's are, fills the slots laid out for it; another, after a re-prepare, replaces it.
    for (const fill of [0x11, 0x22]) {
      const long = Buffer.alloc(16, fill);
      const withLong = expected.map(([, , ...cell]) => ['01', `0010 ${long.toString('hex')}`, ...cell]);
      expect(cells.statements(long).toString('hex')).toBe(withLong.flat().join('').replaceAll(' ', ''));
    }
  });

  it("passes the steps between Client.batch and the writer untouched: named-parameter adaptation, then routing by the first partition's key", () => {
    const cells = new PointCells([
      { key: Buffer.from('0102', 'hex'), columns: [1], values: [Uint8Array.of(9)], ttls: [0], from: 0, to: 1 },
      { key: Buffer.from('03', 'hex'), columns: [1], values: [Uint8Array.of(9)], ttls: [0], from: 0, to: 1 },
    ]);
    const params = cells.params;
    expect(params).toEqual([cells.key, cells]);
    expect(adaptNamedParamsPrepared(params, META.columns)).toBe(params);
    const client = new cassandra.Client({ contactPoints: ['127.0.0.1'], localDataCenter: 'dc1' });
    const options = DefaultExecutionOptions.create({ prepare: true, logged: false }, client);
    // Client._setRoutingInfo's path for a prepared statement whose metadata names its partition key.
    options.setRoutingIndexes(META.partitionKeys);
    new Encoder(4, optionsOf(client)).setRoutingKeyFromMeta(META, params, options);
    expect(options.getRoutingKey()).toEqual(Buffer.from('0102', 'hex'));
    expect(String((cassandra.Client.prototype as unknown as Record<string, () => void>)['_setRoutingInfo'])).toContain(
      'encoder.setRoutingKeyFromMeta(meta, params, execOptions)',
    );
    expect(
      String((cassandra.Client.prototype as unknown as Record<string, () => void>)['_createBatchRequest']),
    ).toContain('this._setRoutingInfo(info, firstQuery.params, firstQuery.meta)');
  });

  it("fails a statement that binds other variables, an empty batch or an unprepared one through the connection's write callback", async () => {
    const run: CellRun = {
      key: Buffer.from('01', 'hex'),
      columns: [1],
      values: [Uint8Array.of(9)],
      ttls: [0],
      from: 0,
      to: 1,
    };
    const cells = new PointCells([run]);
    const withTimestamp: PreparedMeta = {
      ...META,
      columns: [...META.columns, { name: '[timestamp]', type: { code: dataTypes.bigint, type: null } }],
    };
    // Nothing answers the one request that is written: it times out at once.
    const client = new cassandra.Client({
      contactPoints: ['127.0.0.1'],
      localDataCenter: 'dc1',
      socketOptions: { readTimeout: 20 },
    });
    const conn = fakeConnection(client);
    await expect(
      conn.send(
        new BatchRequest(
          [{ query: INSERT, params: cells.params, queryId: QUERY_ID, meta: withTimestamp }],
          DefaultExecutionOptions.create({}, client),
        ),
      ),
    ).rejects.toThrow(
      'a data_points batch needs the variables key, column1, value (blobs) and [ttl] (int), but its statement binds key:3, column1:3, value:3, [ttl]:9, [timestamp]:2',
    );
    const none = new PointCells([{ ...run, from: 0, to: 0 }]);
    await expect(
      conn.send(
        new BatchRequest(
          [{ query: INSERT, params: none.params, queryId: QUERY_ID, meta: META }],
          DefaultExecutionOptions.create({}, client),
        ),
      ),
    ).rejects.toThrow('a data_points batch must hold 1 to 65535 cells (got 0)');
    const unprepared = { query: INSERT, params: cells.params } as unknown as QueryItem;
    await expect(conn.send(new BatchRequest([unprepared], DefaultExecutionOptions.create({}, client)))).rejects.toThrow(
      'a data_points batch must be prepared',
    );
    const written = conn.send(
      new BatchRequest(
        [{ query: INSERT, params: cells.params, queryId: QUERY_ID, meta: META }],
        DefaultExecutionOptions.create({}, client),
      ),
    );
    await conn.flushed();
    expect(conn.frames.at(-1)!.subarray(9).toString('hex')).toBe(
      new BatchRequest(stockItems({ point: cells, runs: [run] }), DefaultExecutionOptions.create({}, client))
        .write(new Encoder(4, optionsOf(client)), 0)
        .subarray(9)
        .toString('hex'),
    );
    await expect(written).rejects.toThrow('The host 127.0.0.1:9042 did not reply before timeout 20 ms');
    conn.close();
  });

  it('leaves every other batch to the stock writer', () => {
    const client = new cassandra.Client({ contactPoints: ['127.0.0.1'], localDataCenter: 'dc1' });
    const items: QueryItem[] = [
      {
        query: INSERT,
        params: [Buffer.from('01', 'hex'), Buffer.from('00000001', 'hex'), Buffer.from('02', 'hex'), 7],
        queryId: QUERY_ID,
        meta: META,
      },
    ];
    const frame = new BatchRequest(items, DefaultExecutionOptions.create({}, client)).write(
      new Encoder(4, optionsOf(client)),
      3,
    );
    expect(frame.subarray(9, 9 + 3).toString('hex')).toBe('000001');
    expect(frame.subarray(12).toString('hex')).toContain('0000000102');
  });
});

interface Cells {
  readonly point: PointCells;
  readonly runs: readonly CellRun[];
}

/** The same cells as the stock path sends them: a prepared item per cell with its four values. */
function stockItems(cells: Cells): QueryItem[] {
  return cells.runs.flatMap((run) =>
    Array.from({ length: run.to - run.from }, (_, k) => {
      const i = run.from + k;
      const column = Buffer.alloc(4);
      column.writeUInt32BE(run.columns[i]!);
      return {
        query: INSERT,
        params: [run.key, column, Buffer.from(run.values[i]!), run.ttls[i]!],
        queryId: QUERY_ID,
        meta: META,
      };
    }),
  );
}

/** Runs of one to four partitions' cells (values of every length a KairosDB type has, TTLs to Cassandra's maximum). */
function cellsArbitrary(): fc.Arbitrary<Cells> {
  return fc
    .array(runArbitrary(), { minLength: 1, maxLength: 4 })
    .map((runs) => ({ point: new PointCells(runs), runs }));
}

/** A partition's cells and a run of them. */
function runArbitrary(): fc.Arbitrary<CellRun> {
  return fc
    .record({
      key: fc.uint8Array({ minLength: 1, maxLength: 300 }),
      cells: fc.array(
        fc.tuple(
          fc.nat({ max: 0xffffffff }),
          fc.uint8Array({ maxLength: 40 }),
          fc.oneof(fc.constant(0), fc.integer({ min: 1, max: MAX_TTL_SECONDS })),
        ),
        { minLength: 1, maxLength: 60 },
      ),
      skip: fc.nat({ max: 5 }),
    })
    .chain(({ key, cells, skip }) =>
      fc.integer({ min: Math.min(skip, cells.length - 1), max: cells.length - 1 }).chain((from) =>
        fc.integer({ min: from + 1, max: cells.length }).map((to) => {
          // Views into a larger buffer, as the codecs may return them.
          const values = cells.map(([, v]) => {
            const padded = new Uint8Array(v.length + 3);
            padded.set(v, 2);
            return padded.subarray(2, 2 + v.length);
          });
          return {
            key: Buffer.from(key),
            columns: cells.map(([c]) => c),
            values,
            ttls: cells.map(([, , t]) => t),
            from,
            to,
          };
        }),
      ),
    );
}

/** Every protocol version the driver speaks with batches, and every option BatchRequest.write reads. */
function optionsArbitrary(): fc.Arbitrary<{ version: number; options: object }> {
  return fc.record({
    version: fc.constantFrom(
      protocolVersion.v3,
      protocolVersion.v4,
      protocolVersion.v5,
      protocolVersion.dseV1,
      protocolVersion.dseV2,
    ),
    options: fc.record(
      {
        logged: fc.boolean(),
        consistency: fc.constantFrom(
          ...(Object.values(cassandra.types.consistencies) as number[]).filter((c) => c < 0x08),
        ),
        serialConsistency: fc.constantFrom(
          cassandra.types.consistencies.serial,
          cassandra.types.consistencies.localSerial,
        ),
        timestamp: fc.integer({ min: 0, max: 2 ** 47 }),
        traceQuery: fc.boolean(),
        keyspace: fc.constantFrom('kg_hook', 'other'),
        customPayload: fc.constant({ k: Buffer.from('v') }),
      },
      { requiredKeys: [] },
    ),
  });
}

/** The options a Client hands its connections, defaults filled in (`client.options` is not in the typings). */
function optionsOf(client: cassandra.Client): object {
  return (client as unknown as { options: object }).options;
}

/** A driver Connection on a socket that records what the write queue writes; nothing ever answers. */
function fakeConnection(client: cassandra.Client): {
  send(request: object): Promise<void>;
  flushed(): Promise<void>;
  frames: Buffer[];
  close(): void;
} {
  const connection = new Connection('127.0.0.1:9042', 4, optionsOf(client));
  const frames: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      frames.push(chunk);
      callback();
    },
  });
  connection.netClient = socket;
  connection.bindSocketListeners();
  return {
    frames,
    send: (request) =>
      new Promise<void>((resolve, reject) =>
        connection.sendStream(request, null, (error) => (error ? reject(error) : resolve())),
      ),
    flushed: async () => {
      const before = frames.length;
      while (frames.length === before) await new Promise((resolve) => setImmediate(resolve));
    },
    close: () => socket.destroy(),
  };
}
