/**
 * The store's second reach into cassandra-driver's internals: a data_points batch goes onto the wire written straight
 * from a partition's cells, one buffer for all its statements, instead of a query object, a params array and four
 * encoded Buffers per cell. Pinned with lean-page-hook.ts; lean-batch-hook.test.ts fails when an upgrade moves it.
 */
import { createRequire } from 'node:module';
import cassandra from 'cassandra-driver';
import { HOOKED_DRIVER_VERSION } from '../cassandra-client/lean-page-hook.js';

/** A run of one partition's cells: `from` to `to` of its columns, values and TTLs; `key` is its row key. */
export interface CellRun {
  readonly key: Buffer;
  readonly columns: readonly number[];
  readonly values: readonly Uint8Array[];
  readonly ttls: readonly number[];
  readonly from: number;
  readonly to: number;
}

/**
 * The cells of one data_points batch, of one partition or several, the payload of its one query item (`[key, cells]`):
 * the first run's key stays first so that the driver routes the batch from it as it routes any prepared statement;
 * only the lean writer reads the cells. They are laid out when made as the frame holds them, a statement per cell with
 * a slot for the query id, which is known only once the statement is prepared: a write holds one buffer per batch,
 * not an object per cell, while it waits for the index rows and a request permit, and writing it copies ids, not cells.
 */
export class PointCells {
  readonly count: number;
  /** The first run's row key: the batch's routing key. */
  readonly key: Buffer;
  /** Per cell: kind 1, [short bytes] a query id of ID_BYTES, then [short] 4 values, key, column1, value, TTL as [bytes]. */
  private readonly laid: Buffer;
  /** Where each cell's query id goes. */
  private readonly idAt: Uint32Array;

  constructor(runs: readonly CellRun[]) {
    let size = 0;
    let count = 0;
    for (const { key, values, from, to } of runs) {
      for (let i = from; i < to; i++)
        size += STATEMENT_HEAD_BYTES + ID_BYTES + CELL_FIXED_BYTES + key.length + values[i]!.length;
      count += to - from;
    }
    const laid = Buffer.allocUnsafe(size);
    const idAt = new Uint32Array(count);
    let p = 0;
    let c = 0;
    for (const { key, columns, values, ttls, from, to } of runs) {
      for (let i = from; i < to; i++) {
        laid[p++] = 1;
        p = laid.writeUInt16BE(ID_BYTES, p);
        idAt[c++] = p;
        p += ID_BYTES;
        p = laid.writeUInt16BE(4, p);
        p = laid.writeInt32BE(key.length, p);
        p += key.copy(laid, p);
        p = laid.writeInt32BE(4, p);
        p = laid.writeUInt32BE(columns[i]!, p);
        const value = values[i]!;
        p = laid.writeInt32BE(value.length, p);
        laid.set(value, p);
        p += value.length;
        p = laid.writeInt32BE(4, p);
        p = laid.writeInt32BE(ttls[i]!, p);
      }
    }
    this.laid = laid;
    this.idAt = idAt;
    this.count = count;
    this.key = runs[0]?.key ?? EMPTY;
  }

  /** The query item that carries these cells: the first key first, for the driver's routing. */
  get params(): [Buffer, PointCells] {
    return [this.key, this];
  }

  /**
   * The batch's statements as BatchRequest.write encodes one prepared item per cell: kind 1, [short bytes] query id,
   * the cell. With an id of ID_BYTES, the laid-out buffer itself (a retry writes the same ids again).
   */
  statements(queryId: Buffer): Buffer {
    const { laid, idAt, count } = this;
    if (queryId.length === ID_BYTES) {
      for (let i = 0; i < count; i++) queryId.copy(laid, idAt[i]!);
      return laid;
    }
    const out = Buffer.allocUnsafe(laid.length + count * (queryId.length - ID_BYTES));
    let p = 0;
    for (let i = 0; i < count; i++) {
      out[p++] = 1;
      p = out.writeUInt16BE(queryId.length, p);
      p += queryId.copy(out, p);
      p += laid.copy(out, p, idAt[i]! + ID_BYTES, i + 1 < count ? idAt[i + 1]! - 3 : laid.length);
    }
    return out;
  }
}

const EMPTY = Buffer.alloc(0);

/** Cassandra's prepared statement ids are MD5 digests. */
const ID_BYTES = 16;

/** A statement's bytes before its query id: its kind and the id's length. */
const STATEMENT_HEAD_BYTES = 1 + 2;

/** A cell's bytes besides its key and value: [short] values count, four [int] lengths, column1 (4) and the TTL (4). */
const CELL_FIXED_BYTES = 2 + 4 * 4 + 4 + 4;

/**
 * Installs the hook once per process (every client shares the driver's BatchRequest prototype). Throws, naming the
 * way out, when the running driver is not the release the hook was verified on or lacks what it relies on.
 */
export function installLeanBatchHook(): void {
  const prototype = driverBatchRequest().prototype;
  if (prototype.write === leanWrite) return;
  const problem = leanBatchHookProblem(String((cassandra as unknown as { version: unknown }).version), prototype);
  if (problem !== undefined) throw new Error(problem);
  stockWrite = prototype.write;
  prototype.write = leanWrite;
}

/** Why the hook cannot go into this driver, or undefined when it can. */
export function leanBatchHookProblem(version: string, prototype: Partial<BatchRequestPrototype>): string | undefined {
  if (version !== HOOKED_DRIVER_VERSION) {
    return (
      `the lean batch encoder hooks cassandra-driver ${HOOKED_DRIVER_VERSION}'s batch request writer, but ${version} is installed: ` +
      'make src/store/cassandra/lean-batch-hook.test.ts pass on it and update HOOKED_DRIVER_VERSION, or set CASSANDRA_WRITE_ENCODER=driver'
    );
  }
  if (typeof prototype.write !== 'function')
    return `the lean batch encoder needs cassandra-driver's BatchRequest.prototype.write, which ${version} does not have`;
  return undefined;
}

/** The driver's own `BatchRequest` (lib/requests.js), the one `Client.batch` instantiates; exported for the hook's test. */
export function driverBatchRequest(): { prototype: BatchRequestPrototype } {
  return require('cassandra-driver/lib/requests.js').BatchRequest as { prototype: BatchRequestPrototype };
}

// What the hook relies on, as lib/requests.js, lib/writers.js and lib/execution-options.js of 4.10.0 define it.

/** A query item as `PrepareHandler.getPreparedMultiple` leaves it: the statement's id and its bound variables. */
interface PreparedItem {
  readonly params?: readonly unknown[];
  readonly queryId?: Buffer;
  readonly meta?: { readonly columns: readonly { readonly name: string; readonly type: { readonly code: number } }[] };
}

interface ExecutionOptions {
  isQueryTracing(): boolean;
  getCustomPayload(): Record<string, Buffer> | undefined;
  getConsistency(): number;
  getSerialConsistency(): number | undefined;
  getKeyspace(): string | undefined;
}

interface BatchRequest {
  readonly queries: readonly PreparedItem[];
  readonly options: ExecutionOptions;
  /** A driver Long, or null without a timestamp. */
  readonly timestamp: unknown;
  /** logged, unlogged or counter. */
  readonly type: number;
  length: number;
}

interface Encoder {
  readonly protocolVersion: number;
}

interface FrameWriter {
  readonly bodyLength: number;
  add(buf: Buffer): void;
  writeByte(n: number): void;
  writeShort(n: number): void;
  writeInt(n: number): void;
  writeLong(n: unknown): void;
  writeString(s: string): void;
  writeCustomPayload(payload: Record<string, Buffer>): void;
  write(version: number, streamId: number, flags: number): Buffer;
}

type Write = (this: BatchRequest, encoder: Encoder, streamId: number) => Buffer;

export interface BatchRequestPrototype {
  write: Write;
}

const require = createRequire(import.meta.url);
const FrameWriterClass = require('cassandra-driver/lib/writers.js').FrameWriter as new (opcode: number) => FrameWriter;
const driverTypes = require('cassandra-driver/lib/types/index.js') as {
  opcodes: { batch: number };
  frameFlags: { tracing: number; customPayload: number };
  protocolVersion: Record<
    'supportsTimestamp' | 'supportsKeyspaceInRequest' | 'uses4BytesQueryFlags',
    (version: number) => boolean
  >;
};
const { protocolVersion } = driverTypes;
const { dataTypes } = cassandra.types;
/** lib/requests.js's `batchFlag`, which it does not export. */
const WITH_SERIAL_CONSISTENCY = 0x10;
const WITH_DEFAULT_TIMESTAMP = 0x20;
const WITH_KEYSPACE = 0x80;
/** The bound variables of the data_points insert, in order: `key`, `column1`, `value` (blobs) and `[ttl]` (int). */
const INSERT_VARIABLES = [
  ['key', dataTypes.blob],
  ['column1', dataTypes.blob],
  ['value', dataTypes.blob],
  ['[ttl]', dataTypes.int],
] as const;
let stockWrite: Write | undefined;

/**
 * `BatchRequest.prototype.write` for every connection of the process. A batch whose one query item carries PointCells
 * is written here, byte for byte as the stock writer writes one prepared item per cell (the test compares both);
 * everything else goes to the driver's own writer. A throw fails the request through the driver's write callback.
 */
function leanWrite(this: BatchRequest, encoder: Encoder, streamId: number): Buffer {
  const item = this.queries.length === 1 ? this.queries[0]! : undefined;
  const cells = item?.params?.[1];
  if (!(cells instanceof PointCells)) return stockWrite!.call(this, encoder, streamId);
  if (item!.queryId === undefined) throw new TypeError('a data_points batch must be prepared');
  const columns = item!.meta?.columns ?? [];
  const matches =
    columns.length === INSERT_VARIABLES.length &&
    INSERT_VARIABLES.every(([name, code], i) => columns[i]!.name === name && columns[i]!.type.code === code);
  if (!matches) {
    const found = columns.map((c) => `${c.name}:${c.type.code}`).join(', ');
    throw new TypeError(
      `a data_points batch needs the variables key, column1, value (blobs) and [ttl] (int), but its statement binds ${found}`,
    );
  }
  if (cells.count <= 0 || cells.count > 0xffff)
    throw new RangeError(`a data_points batch must hold 1 to 65535 cells (got ${cells.count})`);

  // From here on, the stock writer's own steps, with the statements written in one piece.
  const frameWriter = new FrameWriterClass(driverTypes.opcodes.batch);
  let headerFlags = this.options.isQueryTracing() ? driverTypes.frameFlags.tracing : 0;
  const payload = this.options.getCustomPayload();
  if (payload) {
    headerFlags |= driverTypes.frameFlags.customPayload;
    frameWriter.writeCustomPayload(payload);
  }
  frameWriter.writeByte(this.type);
  frameWriter.writeShort(cells.count);
  frameWriter.add(cells.statements(item!.queryId));
  frameWriter.writeShort(this.options.getConsistency());
  const version = encoder.protocolVersion;
  if (protocolVersion.supportsTimestamp(version)) {
    const serial = this.options.getSerialConsistency();
    let flags = serial ? WITH_SERIAL_CONSISTENCY : 0;
    const timestamp = this.timestamp;
    flags |= timestamp !== null && timestamp !== undefined ? WITH_DEFAULT_TIMESTAMP : 0;
    const keyspace = this.options.getKeyspace();
    flags |= keyspace && protocolVersion.supportsKeyspaceInRequest(version) ? WITH_KEYSPACE : 0;
    if (protocolVersion.uses4BytesQueryFlags(version)) frameWriter.writeInt(flags);
    else frameWriter.writeByte(flags);
    if (flags & WITH_SERIAL_CONSISTENCY) frameWriter.writeShort(serial!);
    if (flags & WITH_DEFAULT_TIMESTAMP) frameWriter.writeLong(timestamp);
    if (flags & WITH_KEYSPACE) frameWriter.writeString(keyspace!);
  }
  this.length = frameWriter.bodyLength;
  return frameWriter.write(version, streamId, headerFlags);
}
