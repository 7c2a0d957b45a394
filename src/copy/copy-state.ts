/**
 * The resume file of `npm run copy`: an append-only log of JSON lines, a header naming the copy's arguments, then one
 * line per partition whose points are all durable in the destination. A run killed at any moment resumes from it.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, truncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { MAX_EPOCH_MS } from '../lib/epoch-ms.js';
import type { Partition } from '../model/series.js';

/** What identifies one copy: a state file resumes only the copy it was made for. */
export interface CopyArguments {
  readonly from: string;
  readonly to: string;
  /** Sorted and distinct; null for every metric of the source (listed again by each run). */
  readonly metrics: readonly string[] | null;
  readonly startMs: number;
  readonly endMs: number;
}

/** A refusal of the copy, with the exit code the CLI gives it (2: the arguments, 1: the data). */
export class CopyError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

const FORMAT = 1;
/** Records reach the OS at once (a SIGKILL loses none); fsync bounds what a power failure can lose to this long. */
const FSYNC_EVERY_MS = 1000;

export class CopyState {
  private lastSyncMs = performance.now();

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** Partitions recorded as copied, by partitionId. */
    private readonly done: Set<string>,
  ) {}

  /**
   * Opens the state of the copy `args` at `path`: resumes it when it is this copy's, starts a new one when there is
   * none or `fresh`, and refuses another copy's state.
   */
  static open(path: string, args: CopyArguments, fresh: boolean): CopyState {
    const done = new Set<string>();
    if (fresh || !existsSync(path)) {
      writeAtomically(path, `${JSON.stringify({ kairographCopy: FORMAT, ...args })}\n`);
    } else {
      const text = readFileSync(path, 'utf8');
      // A kill can cut the last record short: it is dropped (its partition is copied again) before anything is appended.
      const complete = text.slice(0, text.lastIndexOf('\n') + 1);
      if (complete.length < text.length) truncateSync(path, Buffer.byteLength(complete));
      const lines = complete.split('\n').slice(0, -1);
      const header = parseLine(lines[0], path, 1) as Partial<CopyArguments & { kairographCopy: number }>;
      if (header.kairographCopy !== FORMAT)
        throw new CopyError(
          `${path} is not a state file of npm run copy: use another --state, or --fresh to replace it`,
        );
      const theirs: CopyArguments = {
        from: header.from!,
        to: header.to!,
        metrics: header.metrics ?? null,
        startMs: header.startMs!,
        endMs: header.endMs!,
      };
      if (canonical(theirs) !== canonical(args)) {
        throw new CopyError(
          `the state file ${path} belongs to another copy (${describeArguments(theirs)}), not this one (${describeArguments(args)}): run with its arguments to resume it, or add --fresh to start this one over`,
          2,
        );
      }
      for (let i = 1; i < lines.length; i++) {
        const record = parseLine(lines[i], path, i + 1) as { done?: unknown };
        if (!Array.isArray(record.done))
          throw new CopyError(`${path} line ${i + 1} is not a record of a copied partition: use --fresh to start over`);
        done.add(JSON.stringify(record.done));
      }
    }
    return new CopyState(path, openSync(path, 'a'), done);
  }

  /** Partitions recorded as copied. */
  get size(): number {
    return this.done.size;
  }

  has(id: string): boolean {
    return this.done.has(id);
  }

  /** Records partitions whose points the destination has acknowledged as durable. */
  record(ids: readonly string[]): void {
    if (ids.length === 0) return;
    let lines = '';
    for (const id of ids) {
      lines += `{"done":${id}}\n`;
      this.done.add(id);
    }
    writeSync(this.fd, lines);
    if (performance.now() - this.lastSyncMs >= FSYNC_EVERY_MS) this.sync();
  }

  close(): void {
    this.sync();
    closeSync(this.fd);
  }

  private sync(): void {
    fsyncSync(this.fd);
    this.lastSyncMs = performance.now();
  }
}

/**
 * One partition as the state file names it: metric, row time, data type and tags in name order (a store's tag
 * records list integer-like names first), so the same partition has the same id in every run.
 */
export function partitionId(key: Partition): string {
  const tags = Object.entries(key.tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([key.metric, key.rowTime, key.dataType, tags]);
}

/** The arguments as the command line gives them, for messages; what was left to its default is left out. */
function describeArguments(args: CopyArguments): string {
  const parts = [`--from ${args.from}`, `--to ${args.to}`];
  for (const metric of args.metrics ?? []) parts.push(`--metric ${JSON.stringify(metric)}`);
  if (args.startMs !== -MAX_EPOCH_MS) parts.push(`--from-time ${new Date(args.startMs).toISOString()}`);
  if (args.endMs !== MAX_EPOCH_MS) parts.push(`--to-time ${new Date(args.endMs).toISOString()}`);
  return parts.join(' ');
}

function canonical(args: CopyArguments): string {
  return JSON.stringify([args.from, args.to, args.metrics, args.startMs, args.endMs]);
}

function parseLine(line: string | undefined, path: string, number: number): unknown {
  try {
    const value: unknown = JSON.parse(line ?? '');
    if (typeof value === 'object' && value !== null) return value;
  } catch {
    // Reported below with the file and line.
  }
  throw new CopyError(
    `${path} line ${number} is not a record of npm run copy's state: use another --state, or --fresh to replace it`,
  );
}

/** Temp file, fsync, rename, fsync of the directory: the file is the old one or the new one, never a mix. */
function writeAtomically(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
