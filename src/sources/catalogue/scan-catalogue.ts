/**
 * A layout's list of its partitions where its tables keep none (Heroic's `metrics` table, users' own tables): a
 * paged token-range scan of the table's distinct partition keys (what Heroic's own `keys` task does), each decoded by
 * the layout into a group (Heroic: the metric; a user table: one for all), the start of its period and the series'
 * tags, kept in an LMDB file of its own. Queries read only the file, so they never scan the table; the scan runs in the
 * background, one pass after another, and:
 * - resumes after a restart from the last token it kept (the file holds it, written with each page);
 * - holds a page of keys in memory at a time, whatever the table's size (the file is on disk);
 * - keeps what the layout needs to read each partition as it is in the table (its key's bytes or column values);
 * - at the end of a pass forgets partitions the pass did not see again (deleted outside the gateway);
 * - counts the keys the layout cannot use, by why, and logs the first ones, never failing on them.
 * A static catalogue (a list in the source's settings, static-catalogue.ts) answers the same questions for small
 * deployments.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { open, type Database, type RootDatabase } from 'lmdb';
import { dict } from '../../lib/dict.js';
import type { Logger } from '../../lib/log.js';
import type { CatalogueStatus } from '../capabilities.js';
import type { Catalogue, CataloguedPartition, DecodedPartition, SkippedKey } from './catalogue.js';

/** Where the scan reads partition keys, a page at a time in token order. */
export interface KeyPages<K> {
  keys(after: bigint, limit: number): Promise<{ keys: { readonly token: bigint; readonly key: K }[]; done: boolean }>;
  /**
   * How far along a pass a cursor is, from 0 to 1, where the cursor is not a Murmur3 token (Bigtable's row keys, kept
   * as bigints).
   */
  progress?(after: bigint): number;
}

/** The lowest token of Murmur3Partitioner, which no key has (its tokens run from −2^63 + 1): a scan starts after it. */
export const FIRST_TOKEN = -(2n ** 63n);

/** The highest token of Murmur3Partitioner: a page that ends on it ends the ring. */
const LAST_TOKEN = 2n ** 63n - 1n;

/**
 * A page of `SELECT DISTINCT <key>, token(<key>) ... WHERE token(<key>) > ? LIMIT limit`, and whether it ended the
 * ring. Two keys with the same token would hide one another from a scan that resumes after a token; with 64-bit
 * Murmur3 tokens that is left to chance, as Heroic's own `keys` task leaves it.
 */
export function pageOfKeys<K>(
  keys: { readonly token: bigint; readonly key: K }[],
  limit: number,
): { keys: { readonly token: bigint; readonly key: K }[]; done: boolean } {
  const last = keys.at(-1);
  return { keys, done: keys.length < limit || last === undefined || last.token === LAST_TOKEN };
}

/** The longest group name the file's keys hold (LMDB's 1,978-byte keys, less the base and digest). */
export const CATALOGUE_MAX_GROUP_BYTES = 1800;

export interface ScanCatalogueOptions<K, S> {
  readonly path: string;
  readonly pages: KeyPages<K>;
  /** The layout's reading of a key; never throws. */
  readonly decode: (key: K) => DecodedPartition<S>;
  /** The partition's identity within its group and period, for the file's key (Heroic: the key's bytes). */
  readonly identity: (stored: S) => string | Buffer;
  /** Keys per page of the scan. */
  readonly pageSize: number;
  /** Pause between the end of one pass and the start of the next. */
  readonly refreshIntervalMs: number;
  /** Pause before the scan tries again after Cassandra failed it. */
  readonly retryDelayMs: number;
  /** What the table is, in log lines ("Heroic's table heroic.metrics"). */
  readonly what: string;
  readonly log: Logger;
}

/** The scan's place, kept in the file with every page. */
interface ScanState {
  readonly pass: number;
  /** The token of the last key read; the next page starts after it. */
  readonly after: string;
  readonly keys: number;
  readonly skipped: Readonly<Record<SkippedKey, number>>;
}

interface PassRecord {
  readonly passes: number;
  readonly endedMs: number;
  readonly skipped: Readonly<Record<SkippedKey, number>>;
}

/** A catalogued partition as the file holds it: tags as a flat [k, v, ...] list (no object keys to trip on). */
interface Entry<S> {
  readonly stored: S;
  readonly tags: string[];
  readonly pass: number;
}

/** How many keys of each kind a pass logs (each with why): enough to see what they are. */
const LOGGED_SKIPS = 5;
const NO_SKIPS: Readonly<Record<SkippedKey, number>> = { undecodable: 0, otherSchema: 0, uncatalogued: 0 };

export class ScanCatalogue<K, S> implements Catalogue<S> {
  private readonly env: RootDatabase;
  /** [group, base, digest of identity] → Entry. */
  private readonly entries: Database<Entry<S>, [string, number, string]>;
  /** group → the pass that last saw it. */
  private readonly groupsDb: Database<number, string>;
  /** 'scan' → ScanState, 'last' → PassRecord. */
  private readonly meta: Database<ScanState | PassRecord, string>;
  private stopped = false;
  private readonly stop = new AbortController();
  private readonly running: Promise<void>;

  constructor(private readonly options: ScanCatalogueOptions<K, S>) {
    mkdirSync(options.path, { recursive: true });
    this.env = open({ path: options.path, maxDbs: 4 });
    this.entries = this.env.openDB({ name: 'entries' });
    this.groupsDb = this.env.openDB({ name: 'groups' });
    this.meta = this.env.openDB({ name: 'meta' });
    this.running = this.run();
  }

  groups(prefix: string, limit?: number): string[] {
    const names: string[] = [];
    for (const name of this.groupsDb.getKeys({ start: prefix })) {
      if (!name.startsWith(prefix) || (limit !== undefined && names.length >= limit)) break;
      names.push(name);
    }
    return names;
  }

  partitions(group: string, fromBase: number, toBase: number): CataloguedPartition<S>[] {
    const found: CataloguedPartition<S>[] = [];
    for (const { key, value } of this.entries.getRange({ start: [group, fromBase], end: [group, toBase + 1] })) {
      found.push({ group, base: key[1], tags: pairsToDict(value.tags), stored: value.stored });
    }
    return found;
  }

  learn(partitions: readonly CataloguedPartition<S>[]): void {
    const pass = this.state().pass;
    const fresh = partitions.filter((p) => this.entries.get(this.entryKey(p)) === undefined);
    if (fresh.length === 0) return;
    this.entries.transactionSync(() => {
      for (const p of fresh) this.put(p, pass);
    });
  }

  forget(partition: CataloguedPartition<S>): void {
    this.entries.removeSync(this.entryKey(partition));
  }

  forgetGroup(group: string): void {
    this.groupsDb.removeSync(group);
  }

  status(): CatalogueStatus {
    const scan = this.state();
    const last = this.meta.get('last') as PassRecord | undefined;
    // Skipped keys of the last whole pass, or of the first while it runs.
    const skipped = (last ?? scan).skipped;
    return {
      kind: 'scan',
      partitions: this.entries.getKeysCount(),
      passes: last?.passes ?? 0,
      lastPassEndedMs: last?.endedMs,
      progress: (this.options.pages.progress ?? tokenProgress)(BigInt(scan.after)),
      keysScanned: scan.keys,
      undecodableKeys: skipped.undecodable,
      otherSchemaKeys: skipped.otherSchema,
      uncataloguedKeys: skipped.uncatalogued,
    };
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.stop.abort();
    await this.running;
    await this.env.close();
  }

  private state(): ScanState {
    return (
      (this.meta.get('scan') as ScanState | undefined) ?? {
        pass: 1,
        after: FIRST_TOKEN.toString(),
        keys: 0,
        skipped: NO_SKIPS,
      }
    );
  }

  /** Pass after pass until closed; a failed page is tried again after a pause, from where the scan was. */
  private async run(): Promise<void> {
    const { log, what } = this.options;
    let failure: string | undefined;
    while (!this.stopped) {
      try {
        const ended = await this.page();
        failure = undefined;
        if (ended) await this.pause(this.options.refreshIntervalMs);
      } catch (error) {
        if (this.stopped) return;
        const message = error instanceof Error ? error.message : String(error);
        if (message !== failure)
          log.warn(
            { err: message, retryMs: this.options.retryDelayMs },
            `the catalogue scan of ${what} failed; retrying from where it was`,
          );
        failure = message;
        await this.pause(this.options.retryDelayMs);
      }
    }
  }

  /** Reads and keeps one page of keys; true when it ended a pass. */
  private async page(): Promise<boolean> {
    const state = this.state();
    if (state.after === FIRST_TOKEN.toString() && state.keys === 0)
      this.options.log.info({ pass: state.pass }, `the catalogue scan of ${this.options.what} starts a pass`);
    const { keys, done } = await this.options.pages.keys(BigInt(state.after), this.options.pageSize);
    if (this.stopped) return false;
    const skipped = { ...state.skipped };
    this.entries.transactionSync(() => {
      for (const { key } of keys) {
        const decoded = this.options.decode(key);
        if ('skip' in decoded) {
          if (skipped[decoded.skip] < LOGGED_SKIPS)
            this.options.log.warn(
              { why: decoded.why, skipped: decoded.skip },
              `a key of ${this.options.what} is skipped`,
            );
          skipped[decoded.skip]++;
          continue;
        }
        if (Buffer.byteLength(decoded.group) > CATALOGUE_MAX_GROUP_BYTES) {
          skipped.uncatalogued++;
          continue;
        }
        this.put(decoded, state.pass);
      }
      const last = keys.at(-1);
      this.meta.putSync('scan', {
        pass: state.pass,
        after: (last?.token ?? BigInt(state.after)).toString(),
        keys: state.keys + keys.length,
        skipped,
      });
    });
    if (!done) return false;
    await this.endPass(this.state());
    return true;
  }

  /** Forgets what the pass did not see again, records it, and sets up the next. */
  private async endPass(state: ScanState): Promise<void> {
    const stale: [string, number, string][] = [];
    for (const { key, value } of this.entries.getRange({})) if (value.pass < state.pass) stale.push(key);
    const staleGroups: string[] = [];
    for (const { key, value } of this.groupsDb.getRange({})) if (value < state.pass) staleGroups.push(key);
    for (let i = 0; i < stale.length; i += 1000) {
      this.entries.transactionSync(() => {
        for (const key of stale.slice(i, i + 1000)) this.entries.removeSync(key);
      });
      await yieldToEventLoop();
    }
    const previous = this.meta.get('last') as PassRecord | undefined;
    const record: PassRecord = { passes: (previous?.passes ?? 0) + 1, endedMs: Date.now(), skipped: state.skipped };
    this.meta.transactionSync(() => {
      for (const name of staleGroups) this.groupsDb.removeSync(name);
      this.meta.putSync('last', record);
      this.meta.putSync('scan', { pass: state.pass + 1, after: FIRST_TOKEN.toString(), keys: 0, skipped: NO_SKIPS });
    });
    this.options.log.info(
      {
        pass: state.pass,
        keys: state.keys,
        partitions: this.entries.getKeysCount(),
        forgotten: stale.length,
        ...state.skipped,
      },
      `the catalogue scan of ${this.options.what} ended a pass`,
    );
  }

  /** Inside a write transaction. */
  private put(p: CataloguedPartition<S>, pass: number): void {
    this.entries.putSync(this.entryKey(p), { stored: p.stored, tags: Object.entries(p.tags).flat(), pass });
    if ((this.groupsDb.get(p.group) ?? 0) < pass) this.groupsDb.putSync(p.group, pass);
  }

  private entryKey(p: CataloguedPartition<S>): [string, number, string] {
    return [p.group, p.base, createHash('sha1').update(this.options.identity(p.stored)).digest('base64')];
  }

  private async pause(ms: number): Promise<void> {
    const { signal } = this.stop;
    // Closed while a page was read: an aborted signal fires no more, and the pause would hold close() for all of it.
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      // The listener goes with the pause: one left behind per pass would pile up for the catalogue's whole life.
      const wake = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal.addEventListener('abort', wake, { once: true });
    });
  }
}

function pairsToDict(pairs: readonly string[]): Record<string, string> {
  const tags = dict<string>();
  for (let i = 0; i + 1 < pairs.length; i += 2) tags[pairs[i]!] = pairs[i + 1]!;
  return tags;
}

/** How far a token is along the ring, from 0 to 1. */
function tokenProgress(token: bigint): number {
  return Number(token - FIRST_TOKEN) / 2 ** 64;
}
