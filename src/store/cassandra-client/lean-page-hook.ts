/**
 * The one place a Cassandra client reaches into cassandra-driver's internals to read pages: its per-connection result
 * parser hands the pages a client's LeanReader matches (the KairosDB store's data_points scans, a user table's time and
 * value columns) over as what the reader makes of the frame's own bytes, instead of a Row object per row. Pinned to the
 * driver release it was read against; store/cassandra/lean-page-hook.test.ts fails when an upgrade moves what it relies on.
 */
import { createRequire } from 'node:module';
import cassandra from 'cassandra-driver';

/** The cassandra-driver release this hook was written and tested against; package.json pins exactly this one. */
export const HOOKED_DRIVER_VERSION = '4.10.0';

/**
 * The key under the client's `encoding` options that opts a client in. `encoding` is the only client option the
 * driver hands to each connection's parser (as `parser.encoder.encodingOptions`), including connections it opens
 * later; the driver ignores keys it does not know and copies a class instance by reference.
 */
export const LEAN_PAGES_KEY = 'kairographLeanPages';

/**
 * What a client carries under LEAN_PAGES_KEY: which results it decodes from the frame's bytes itself, and into what.
 * `read` gets the page's `count` rows at `buf[start]` (and the result's columns) and returns what `result.rows` becomes; it throws on a page whose
 * rows do not fit the frame, which fails the request as the driver's own parse errors do.
 */
export interface LeanReader {
  matches(meta: RowsMetadata): boolean;
  read(buf: Buffer, start: number, count: number, meta: RowsMetadata): object;
}

/**
 * Installs the hook once per process (every client shares the driver's Parser prototype). Throws, naming the way
 * out, when the running driver is not the release the hook was verified on or lacks what it relies on: a silent
 * fall-back would only show as slow reads.
 */
export function installLeanPageHook(): void {
  const prototype = driverParser().prototype;
  if (prototype.parseRows === leanParseRows) return;
  const problem = leanHookProblem(String((cassandra as unknown as { version: unknown }).version), prototype);
  if (problem !== undefined) throw new Error(problem);
  stockParseRows = prototype.parseRows;
  prototype.parseRows = leanParseRows;
}

/** Why the hook cannot go into this driver, or undefined when it can. */
export function leanHookProblem(version: string, prototype: Partial<ParserPrototype>): string | undefined {
  if (version !== HOOKED_DRIVER_VERSION) {
    return (
      `the lean page decoder hooks cassandra-driver ${HOOKED_DRIVER_VERSION}'s result parser, but ${version} is installed: ` +
      'make src/store/cassandra/lean-page-hook.test.ts pass on it and update HOOKED_DRIVER_VERSION, or set CASSANDRA_SCAN_DECODER=driver'
    );
  }
  for (const method of ['parseRows', 'handleParsingError', 'push'] as const) {
    if (typeof prototype[method] !== 'function')
      return `the lean page decoder needs cassandra-driver's Parser.prototype.${method}, which ${version} does not have`;
  }
  return undefined;
}

/** The driver's own `Parser` (lib/streams.js), the one its connections instantiate; exported for the hook's test. */
export function driverParser(): { prototype: ParserPrototype } {
  return require('cassandra-driver/lib/streams.js').Parser as { prototype: ParserPrototype };
}

// What the hook relies on, as lib/streams.js and lib/readers.js of 4.10.0 define it.

/** `readers.FrameReader`: the frame body (or the socket chunk holding it) and the offset of the rows count. */
interface FrameReader {
  readonly buf: Buffer;
  readonly offset: number;
}

export interface ColumnSpec {
  readonly ksname?: string;
  readonly tablename?: string;
  readonly name: string;
  readonly type: { readonly code: number };
}

/** `FrameReader.readMetadata`'s result for a ROWS result. */
export interface RowsMetadata {
  readonly columns: readonly ColumnSpec[];
  readonly keyspace?: string;
  readonly table?: string;
}

/** `Parser.frameState`'s per-frame state once `parseResult` has read the ROWS metadata. */
interface FrameInfo {
  readonly header: unknown;
  readonly meta: RowsMetadata;
  readonly flagsInfo: unknown;
  /** Set only for `eachRow`/`stream` requests, whose frames are parsed as chunks arrive; the store sends none. */
  readonly byRow?: boolean;
}

interface Parser {
  readonly encoder: { readonly encodingOptions: Readonly<Record<string, unknown>> };
  push(item: object): boolean;
  handleParsingError(error: unknown, frameInfo: FrameInfo, reader: null): void;
}

type ParseRows = (this: Parser, frameInfo: FrameInfo, reader: FrameReader) => void;

export interface ParserPrototype {
  parseRows: ParseRows;
  handleParsingError: Parser['handleParsingError'];
  push: Parser['push'];
}

const require = createRequire(import.meta.url);
let stockParseRows: ParseRows | undefined;

/**
 * `Parser.prototype.parseRows` for every connection of the process. A frame that is not parsed as it streams in
 * arrives here whole (the parser buffers it), with the reader at the rows count. Pages its client's LeanReader matches
 * become what the reader makes of them (the KairosDB store's scans: one ScanRows), on the result the driver completes the request with (`result.rows`, which it passes to the
 * ResultSet untouched); everything else goes to the driver's own parseRows. A malformed page fails its request as
 * the driver's own parse errors do.
 */
function leanParseRows(this: Parser, frameInfo: FrameInfo, reader: FrameReader): void {
  const lean = this.encoder.encodingOptions[LEAN_PAGES_KEY] as Partial<LeanReader> | undefined;
  if (
    typeof lean?.matches !== 'function' ||
    typeof lean.read !== 'function' ||
    frameInfo.byRow === true ||
    !lean.matches(frameInfo.meta)
  ) {
    return stockParseRows!.call(this, frameInfo, reader);
  }
  let rows: object;
  try {
    if (reader.offset + 4 > reader.buf.length)
      throw new Error('the page is malformed: its rows count is past the end of the frame');
    rows = lean.read(reader.buf, reader.offset + 4, reader.buf.readInt32BE(reader.offset), frameInfo.meta);
  } catch (error) {
    return this.handleParsingError(error, frameInfo, null);
  }
  this.push({ header: frameInfo.header, result: { rows, meta: frameInfo.meta, flags: frameInfo.flagsInfo } });
}
