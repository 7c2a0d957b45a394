/**
 * Heroic's series without Elasticsearch (reference heroic-cassandra.md §5): the table holds no index, so the catalogue
 * lists its partitions by a paged token-range scan of the distinct partition keys (what Heroic's own `keys` task
 * does), decodes each into (series, base) and keeps them in an LMDB file of its own. Queries read only the file, so they
 * never scan the table; the scan runs in the background, one pass after another, and:
 * - resumes after a restart from the last token it kept (the file holds it, written with each page);
 * - holds a page of keys in memory at a time, whatever the table's size (the file is on disk);
 * - keeps the raw key bytes, so a read goes to the partition that exists, whatever form its key was written in;
 * - at the end of a pass forgets partitions the pass did not see again (deleted outside the gateway);
 * - counts keys that decode in neither form, or in the other schema's, and logs the first ones, never failing on them.
 * A static catalogue (a list of series in the source's settings) answers the same questions for small deployments.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { open, type Database, type RootDatabase } from 'lmdb';
import { dict } from '../../dict.js';
import type { Logger } from '../../log.js';
import type { CatalogueStatus } from '../source.js';
import { FIRST_TOKEN, type MetricsTable, type TableKey } from './metrics-table.js';
import { decodeKey, encodeKey, widthOf, type HeroicSchema, type HeroicSeries } from './row-key.js';

/** One partition of the table: a series in the period starting at `base`, and its key as the table holds it. */
export interface CataloguedPartition {
  readonly series: HeroicSeries;
  readonly base: number;
  readonly key: Buffer;
}

export interface Catalogue {
  metricNames(prefix: string, limit?: number): string[];
  /** The partitions of `metric` with fromBase <= base <= toBase, by base. */
  partitions(metric: string, fromBase: number, toBase: number): CataloguedPartition[];
  /** Partitions just written through the gateway: known at once, before any scan comes by. */
  learn(partitions: readonly CataloguedPartition[]): void;
  /** A partition deleted whole through the gateway. */
  forget(partition: CataloguedPartition): void;
  forgetMetric(metric: string): void;
  status(): CatalogueStatus;
  close(): Promise<void>;
}

/** The longest metric name the catalogue's file keys hold (LMDB's 1,978-byte keys, less the base and digest). */
export const CATALOGUE_MAX_METRIC_BYTES = 1800;

/** Where the scan reads partition keys: the table (metrics-table.ts), a page at a time in token order. */
export type KeyPages = Pick<MetricsTable, 'keys'>;

export interface ScanCatalogueOptions {
  readonly path: string;
  readonly schema: HeroicSchema;
  readonly table: KeyPages;
  /** Keys per page of the scan. */
  readonly pageSize: number;
  /** Pause between the end of one pass and the start of the next. */
  readonly refreshIntervalMs: number;
  /** Pause before the scan tries again after Cassandra failed it. */
  readonly retryDelayMs: number;
  readonly log: Logger;
}

/** The scan's place, kept in the file with every page. */
interface ScanState {
  readonly pass: number;
  /** The token of the last key read; the next page starts after it. */
  readonly after: string;
  readonly keys: number;
  readonly undecodable: number;
  readonly otherSchema: number;
  readonly uncatalogued: number;
}

interface PassRecord {
  readonly passes: number;
  readonly endedMs: number;
  readonly undecodable: number;
  readonly otherSchema: number;
  readonly uncatalogued: number;
}

/** A catalogued partition as the file holds it: tags and resource as flat [k, v, ...] lists (no object keys to trip on). */
interface Entry {
  readonly key: Buffer;
  readonly tags: string[];
  readonly resource: string[];
  readonly pass: number;
}

/** How many undecodable keys a pass logs (each with its bytes and why): enough to see what they are. */
const LOGGED_BAD_KEYS = 5;

export class ScanCatalogue implements Catalogue {
  private readonly env: RootDatabase;
  /** [metric, base, digest of the key bytes] → Entry. */
  private readonly entries: Database<Entry, [string, number, string]>;
  /** metric → the pass that last saw it. */
  private readonly metrics: Database<number, string>;
  /** 'scan' → ScanState, 'last' → PassRecord. */
  private readonly meta: Database<ScanState | PassRecord, string>;
  private readonly other: HeroicSchema;
  private stopped = false;
  private readonly stop = new AbortController();
  private readonly running: Promise<void>;

  constructor(private readonly options: ScanCatalogueOptions) {
    mkdirSync(options.path, { recursive: true });
    this.env = open({ path: options.path, maxDbs: 4 });
    this.entries = this.env.openDB({ name: 'entries' });
    this.metrics = this.env.openDB({ name: 'metrics' });
    this.meta = this.env.openDB({ name: 'meta' });
    this.other = options.schema === 'ng' ? 'legacy' : 'ng';
    this.running = this.run();
  }

  metricNames(prefix: string, limit?: number): string[] {
    const names: string[] = [];
    for (const name of this.metrics.getKeys({ start: prefix })) {
      if (!name.startsWith(prefix) || (limit !== undefined && names.length >= limit)) break;
      names.push(name);
    }
    return names;
  }

  partitions(metric: string, fromBase: number, toBase: number): CataloguedPartition[] {
    const found: CataloguedPartition[] = [];
    for (const { key, value } of this.entries.getRange({ start: [metric, fromBase], end: [metric, toBase + 1] })) {
      found.push({ series: { key: metric, tags: pairsToDict(value.tags), resource: pairsToDict(value.resource) }, base: key[1], key: value.key });
    }
    return found;
  }

  learn(partitions: readonly CataloguedPartition[]): void {
    const pass = this.state().pass;
    const fresh = partitions.filter((p) => this.entries.get(entryKey(p.series.key, p.base, p.key)) === undefined);
    if (fresh.length === 0) return;
    this.entries.transactionSync(() => {
      for (const p of fresh) this.put(p, pass);
    });
  }

  forget(partition: CataloguedPartition): void {
    this.entries.removeSync(entryKey(partition.series.key, partition.base, partition.key));
  }

  forgetMetric(metric: string): void {
    this.metrics.removeSync(metric);
  }

  status(): CatalogueStatus {
    const scan = this.state();
    const last = this.meta.get('last') as PassRecord | undefined;
    // Key counts of the last whole pass, or of the first while it runs.
    const counts = last ?? scan;
    return {
      kind: 'scan',
      partitions: this.entries.getKeysCount(),
      passes: last?.passes ?? 0,
      lastPassEndedMs: last?.endedMs,
      progress: tokenProgress(BigInt(scan.after)),
      keysScanned: scan.keys,
      undecodableKeys: counts.undecodable,
      otherSchemaKeys: counts.otherSchema,
      uncataloguedKeys: counts.uncatalogued,
    };
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.stop.abort();
    await this.running;
    await this.env.close();
  }

  private state(): ScanState {
    return (this.meta.get('scan') as ScanState | undefined) ?? { pass: 1, after: FIRST_TOKEN.toString(), keys: 0, undecodable: 0, otherSchema: 0, uncatalogued: 0 };
  }

  /** Pass after pass until closed; a failed page is tried again after a pause, from where the scan was. */
  private async run(): Promise<void> {
    const { log } = this.options;
    let failure: string | undefined;
    while (!this.stopped) {
      try {
        const ended = await this.page();
        failure = undefined;
        if (ended) await this.pause(this.options.refreshIntervalMs);
      } catch (error) {
        if (this.stopped) return;
        const message = error instanceof Error ? error.message : String(error);
        if (message !== failure) log.warn({ err: message, retryMs: this.options.retryDelayMs }, 'the Heroic catalogue scan failed; retrying from where it was');
        failure = message;
        await this.pause(this.options.retryDelayMs);
      }
    }
  }

  /** Reads and keeps one page of keys; true when it ended a pass. */
  private async page(): Promise<boolean> {
    const state = this.state();
    if (state.after === FIRST_TOKEN.toString() && state.keys === 0) this.options.log.info({ pass: state.pass }, 'the Heroic catalogue scan starts a pass');
    const { keys, done } = await this.options.table.keys(BigInt(state.after), this.options.pageSize);
    if (this.stopped) return false;
    let { undecodable, otherSchema, uncatalogued } = state;
    this.entries.transactionSync(() => {
      for (const key of keys) {
        const decoded = decodeKey(this.options.schema, key.bytes);
        if ('error' in decoded) {
          if ('error' in decodeKey(this.other, key.bytes)) {
            if (undecodable < LOGGED_BAD_KEYS) this.options.log.warn({ key: key.bytes.toString('hex').slice(0, 200), why: decoded.error }, 'a key of the Heroic table decodes in neither form; skipped');
            undecodable++;
          } else otherSchema++;
          continue;
        }
        if (Buffer.byteLength(decoded.series.key) > CATALOGUE_MAX_METRIC_BYTES) {
          uncatalogued++;
          continue;
        }
        this.put({ series: decoded.series, base: decoded.base, key: key.bytes }, state.pass);
      }
      const last: TableKey | undefined = keys.at(-1);
      const next: ScanState = { pass: state.pass, after: (last?.token ?? BigInt(state.after)).toString(), keys: state.keys + keys.length, undecodable, otherSchema, uncatalogued };
      this.meta.putSync('scan', next);
    });
    if (!done) return false;
    await this.endPass(this.state());
    return true;
  }

  /** Forgets what the pass did not see again, records it, and sets up the next. */
  private async endPass(state: ScanState): Promise<void> {
    const stale: [string, number, string][] = [];
    for (const { key, value } of this.entries.getRange({})) if (value.pass < state.pass) stale.push(key);
    const staleMetrics: string[] = [];
    for (const { key, value } of this.metrics.getRange({})) if (value < state.pass) staleMetrics.push(key);
    for (let i = 0; i < stale.length; i += 1000) {
      this.entries.transactionSync(() => stale.slice(i, i + 1000).forEach((key) => this.entries.removeSync(key)));
      await yieldToEventLoop();
    }
    const previous = this.meta.get('last') as PassRecord | undefined;
    const record: PassRecord = { passes: (previous?.passes ?? 0) + 1, endedMs: Date.now(), undecodable: state.undecodable, otherSchema: state.otherSchema, uncatalogued: state.uncatalogued };
    this.meta.transactionSync(() => {
      staleMetrics.forEach((name) => this.metrics.removeSync(name));
      this.meta.putSync('last', record);
      this.meta.putSync('scan', { pass: state.pass + 1, after: FIRST_TOKEN.toString(), keys: 0, undecodable: 0, otherSchema: 0, uncatalogued: 0 });
    });
    this.options.log.info(
      { pass: state.pass, keys: state.keys, partitions: this.entries.getKeysCount(), forgotten: stale.length, undecodable: state.undecodable, otherSchema: state.otherSchema, uncatalogued: state.uncatalogued },
      'the Heroic catalogue scan ended a pass',
    );
  }

  /** Inside a write transaction. */
  private put(p: CataloguedPartition, pass: number): void {
    this.entries.putSync(entryKey(p.series.key, p.base, p.key), { key: p.key, tags: dictToPairs(p.series.tags), resource: dictToPairs(p.series.resource), pass });
    if ((this.metrics.get(p.series.key) ?? 0) < pass) this.metrics.putSync(p.series.key, pass);
  }

  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.stop.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}

/**
 * Series listed in the source's settings, for deployments small enough to name them: every period of the query's
 * range is read for each (Heroic's own way: it computes partitions, it never lists them), and series written through
 * the gateway are added until it stops.
 */
export class StaticCatalogue implements Catalogue {
  private readonly series = new Map<string, Map<string, HeroicSeries>>();

  constructor(
    private readonly schema: HeroicSchema,
    listed: readonly HeroicSeries[],
  ) {
    for (const s of listed) this.add(s);
  }

  metricNames(prefix: string, limit?: number): string[] {
    const names = [...this.series.keys()].filter((name) => name.startsWith(prefix)).sort();
    return limit === undefined ? names : names.slice(0, limit);
  }

  partitions(metric: string, fromBase: number, toBase: number): CataloguedPartition[] {
    const found: CataloguedPartition[] = [];
    const width = widthOf(this.schema);
    for (let base = fromBase; base <= toBase; base += width) {
      for (const series of this.series.get(metric)?.values() ?? []) found.push({ series, base, key: encodeKey(this.schema, series, base) });
    }
    return found;
  }

  learn(partitions: readonly CataloguedPartition[]): void {
    for (const p of partitions) this.add(p.series);
  }

  forget(): void {}

  forgetMetric(): void {}

  status(): CatalogueStatus {
    let partitions = 0;
    for (const list of this.series.values()) partitions += list.size;
    return { kind: 'static', partitions, passes: 0, lastPassEndedMs: undefined, progress: 1, keysScanned: 0, undecodableKeys: 0, otherSchemaKeys: 0, uncataloguedKeys: 0 };
  }

  async close(): Promise<void> {}

  private add(series: HeroicSeries): void {
    let list = this.series.get(series.key);
    if (list === undefined) this.series.set(series.key, (list = new Map()));
    list.set(encodeKey(this.schema, series, 0).toString('hex'), series);
  }
}

function entryKey(metric: string, base: number, key: Buffer): [string, number, string] {
  return [metric, base, createHash('sha1').update(key).digest('base64')];
}

function dictToPairs(tags: Readonly<Record<string, string>>): string[] {
  return Object.entries(tags).flat();
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
