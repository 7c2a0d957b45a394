/**
 * A cassandra-driver 4.10.0 Connection on a socket the test plays the node on, and the protocol v4 ROWS frames it
 * answers with: what the lean page decoder's tests (src/store/cassandra/lean-page-*.test.ts) drive the driver's own
 * request path with, with or without the store's opt-in.
 */
import { createRequire } from 'node:module';
import { Duplex } from 'node:stream';
import cassandra from 'cassandra-driver';
import { leanPagesEncoding } from '../../src/store/cassandra/lean-pages.js';

const require = createRequire(import.meta.url);
export const Connection = require('cassandra-driver/lib/connection.js') as new (
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
export interface DriverResult {
  readonly rows?: unknown;
  readonly meta?: { readonly pageState?: Buffer };
}

export const KEYSPACE = 'kg_hook';
export const BLOB = 0x0003;
export const TEXT = 0x000d;
export const SCAN_COLUMNS: [string, number][] = [
  ['column1', BLOB],
  ['value', BLOB],
];

export interface FakeConnection {
  /** Sends a request and answers it with `frame` (re-addressed to the request's stream), pushed in pieces ending at `cuts`. */
  exchange(frame: Buffer, cuts?: number[], onRow?: (index: number, row: unknown) => void): Promise<DriverResult>;
  /** Sends one request per frame and answers them all in one chunk. */
  exchangeMany(frames: Buffer[]): Promise<DriverResult[]>;
}

/** A driver Connection on a socket the test plays the node on, with or without the store's opt-in. */
export function fakeConnection(lean: boolean): FakeConnection {
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
export function optionsOf(client: cassandra.Client): object {
  return (client as unknown as { options: object }).options;
}

export interface FrameSpec {
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
export function rowsFrame(f: FrameSpec): Buffer {
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
