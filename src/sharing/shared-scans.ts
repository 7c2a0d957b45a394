/**
 * Identical partition reads running at the same time are read from their source once: readers of the same source,
 * partition, range and options (and write generation) take the same slices, each at its own pace. Memory stays
 * bounded: slices every reader has passed are let go (a small prefix is kept a while, so readers that arrive a moment
 * later can still start from the beginning), and a reader that falls far behind the others goes on with a read of its
 * own from where it is. A reader leaves when its signal aborts or it is closed; the source's read stops when the last
 * one leaves.
 */
import { encodeTagString } from '../model/tag-string.js';
import type { Partition, Slice } from '../model/series.js';
import type { ReadOptions } from '../model/read-options.js';
import type { Source } from '../sources/source.js';
import { sliceRange } from '../engine/points.js';
import { untilAborted } from '../lib/until-aborted.js';
import type { WriteGenerations } from './write-generations.js';

/** Points of a read kept from its start while they fit, so that an identical read starting a moment later joins it. */
const JOINABLE_POINTS = 8192;
/** Points held for the slowest reader beyond which it is left to read on alone (two Cassandra pages of 5,000 and some). */
const MAX_HELD_POINTS = 16_384;

export class SharedScans {
  private readonly reads = new Map<string, SharedRead>();
  /** Readers that joined a read under way, since start. */
  joins = 0;

  constructor(private readonly generations: WriteGenerations) {}

  /** `source.read(key, startMs, endMs, options)`, shared with identical reads under way. */
  scan(
    source: Source,
    key: Partition,
    startMs: number,
    endMs: number,
    options: ReadOptions = {},
  ): AsyncIterable<Slice> {
    return { [Symbol.asyncIterator]: () => new Reader(this, source, key, startMs, endMs, options) };
  }

  /** The read `reader` should take its slices from: one under way that still holds its start, or a new one. */
  attach(reader: Reader): SharedRead {
    const { source, key, startMs, endMs, options } = reader;
    const id = JSON.stringify([
      source.name,
      key.metric,
      key.rowTime,
      key.dataType,
      encodeTagString(key.tags),
      startMs,
      endMs,
      options.order ?? 'asc',
      options.limit ?? 0,
      options.pageSize ?? 0,
      this.generations.of(source.name, key.metric),
    ]);
    let read = this.reads.get(id);
    if (read?.joinable) {
      this.joins++;
    } else {
      const { signal: _, ...rest } = options;
      read = new SharedRead(id, this, (signal) => source.read(key, startMs, endMs, { ...rest, signal }));
      this.reads.set(id, read);
    }
    read.readers.add(reader);
    return read;
  }

  forget(read: SharedRead): void {
    if (this.reads.get(read.id) === read) this.reads.delete(read.id);
  }

  /** A reader's own read from where it is (it fell behind), or from the start. */
  resume(reader: Reader): AsyncIterator<Slice> {
    const { source, key, startMs, endMs, options, consumed, lastTs, sameTs } = reader;
    if (consumed === 0) return source.read(key, startMs, endMs, options)[Symbol.asyncIterator]();
    const asc = (options.order ?? 'asc') === 'asc';
    // From the last time read, skipping the points at that time already read (legacy rows can hold two at one time).
    const limit =
      options.limit === undefined || options.limit === 0 ? {} : { limit: options.limit - consumed + sameTs };
    const rest = source.read(key, asc ? lastTs : startMs, asc ? endMs : lastTs, { ...options, ...limit });
    return skipFirst(rest, sameTs)[Symbol.asyncIterator]();
  }

  /** Reads under way. */
  get size(): number {
    return this.reads.size;
  }
}

/** One store read and the slices its readers have not all passed yet. */
class SharedRead {
  readonly readers = new Set<Reader>();
  private readonly controller = new AbortController();
  private readonly source: AsyncIterator<Slice>;
  /** Slices held; `slices[0]` is slice number `base` of the read. */
  private readonly slices: Slice[] = [];
  private base = 0;
  private held = 0;
  private finished = false;
  private failure: { error: unknown } | undefined;
  private pulling: Promise<void> | undefined;

  constructor(
    readonly id: string,
    private readonly owner: SharedScans,
    open: (signal: AbortSignal) => AsyncIterable<Slice>,
  ) {
    this.source = open(this.controller.signal)[Symbol.asyncIterator]();
  }

  /** A new reader starts at slice 0, so it can join only while that is held. */
  get joinable(): boolean {
    return this.base === 0 && this.failure === undefined;
  }

  /** The next slice for `reader`, the end, or 'alone' when it fell behind and must read on by itself. */
  async next(reader: Reader): Promise<IteratorResult<Slice> | 'alone'> {
    for (;;) {
      if (!this.readers.has(reader)) return 'alone';
      const i = reader.position - this.base;
      if (i < this.slices.length) {
        const slice = this.slices[i]!;
        reader.position++;
        this.letGo();
        return { value: slice, done: false };
      }
      if (this.failure !== undefined) throw this.failure.error;
      if (this.finished) return { value: undefined, done: true };
      this.pulling ??= this.pull();
      await untilAborted(this.pulling, reader.options.signal);
    }
  }

  leave(reader: Reader): void {
    if (!this.readers.delete(reader)) return;
    if (this.readers.size > 0) {
      this.letGo();
      return;
    }
    this.owner.forget(this);
    if (!this.finished) {
      this.controller.abort(new Error('every reader of a shared partition read left'));
      void this.source.return?.().catch(() => undefined);
    }
  }

  private async pull(): Promise<void> {
    try {
      const next = await this.source.next();
      if (next.done) this.finished = true;
      else {
        this.slices.push(next.value);
        this.held += next.value.timestamps.length;
        this.bound();
      }
    } catch (error) {
      this.failure = { error };
      this.owner.forget(this);
    } finally {
      this.pulling = undefined;
    }
  }

  /** Drops the slices every reader has passed, once the start is no longer worth holding for late readers. */
  private letGo(): void {
    if (this.base === 0 && this.held <= JOINABLE_POINTS && !this.finished) return;
    let slowest = this.base + this.slices.length;
    for (const reader of this.readers) slowest = Math.min(slowest, reader.position);
    while (this.base < slowest) {
      this.held -= this.slices.shift()!.timestamps.length;
      this.base++;
    }
  }

  /** Readers holding more than MAX_HELD_POINTS back read on alone, so one slow reader cannot hold a partition. */
  private bound(): void {
    this.letGo();
    if (this.held <= MAX_HELD_POINTS) return;
    const fastest = Math.max(...[...this.readers].map((r) => r.position));
    for (const reader of [...this.readers]) {
      if (reader.position < fastest && reader.position === this.base) this.readers.delete(reader);
    }
    this.letGo();
  }
}

/** One reader's iterator over a partition read: shared while it keeps up, its own once it falls behind. */
class Reader implements AsyncIterator<Slice> {
  /** Number of the next slice it takes from the shared read. */
  position = 0;
  /** Points taken, the last time taken and how many points at that time were taken (for reading on alone). */
  consumed = 0;
  lastTs = Number.NaN;
  sameTs = 0;
  private read: SharedRead | undefined;
  private own: AsyncIterator<Slice> | undefined;
  private done = false;

  constructor(
    private readonly owner: SharedScans,
    readonly source: Source,
    readonly key: Partition,
    readonly startMs: number,
    readonly endMs: number,
    readonly options: ReadOptions,
  ) {}

  async next(): Promise<IteratorResult<Slice>> {
    if (this.done) return { value: undefined, done: true };
    try {
      this.options.signal?.throwIfAborted();
      for (;;) {
        if (this.own !== undefined) return this.took(await this.own.next());
        this.read ??= this.owner.attach(this);
        const next = await this.read.next(this);
        if (next !== 'alone') return this.took(next);
        this.read = undefined;
        this.own = this.owner.resume(this);
      }
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async return(): Promise<IteratorResult<Slice>> {
    await this.close();
    return { value: undefined, done: true };
  }

  private took(result: IteratorResult<Slice>): IteratorResult<Slice> {
    if (result.done) {
      void this.close();
      return result;
    }
    const ts = result.value.timestamps;
    const n = ts.length;
    if (n > 0) {
      const last = ts[n - 1]!;
      let same = 1;
      while (same < n && ts[n - 1 - same] === last) same++;
      this.sameTs = same === n && last === this.lastTs ? this.sameTs + n : same;
      this.lastTs = last;
      this.consumed += n;
    }
    return result;
  }

  private async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.read?.leave(this);
    this.read = undefined;
    await this.own?.return?.().catch(() => undefined);
  }
}

/** A read without its first `count` points (all at the time it starts from). */
async function* skipFirst(scan: AsyncIterable<Slice>, count: number): AsyncGenerator<Slice> {
  let skip = count;
  for await (const slice of scan) {
    if (skip === 0) {
      yield slice;
      continue;
    }
    const n = slice.timestamps.length;
    if (n <= skip) {
      skip -= n;
      continue;
    }
    yield sliceRange(slice, skip, n);
    skip = 0;
  }
}
