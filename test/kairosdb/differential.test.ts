/**
 * The differential suite: each case of test/kairosdb/cases/*.json goes to KairosDB 1.3 and to Kairograph on one keyspace;
 * the answers must agree but for TOLERATED, each naming its SEMANTICS.md or COMPATIBILITY.md entry. Prints the tally.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DATASTORE_TYPES,
  encodeColumn,
  encodeDouble,
  encodeLong,
  encodeRowKey,
  encodeString,
  rowTimeOf,
} from '../../src/store/format/index.js';
import type { RowSpec } from '../../src/store/store.js';
import { plainClient } from '../integration/cassandra-stores.js';
import type { RestResponse } from '../rest/rest-client.js';
import { openPair, sampleSizes, uniquePrefix, until, type Pair, type RestServer } from './kairosdb-pair.js';

// ---------------------------------------------------------------------------------------------------------------------
// The tolerated differences. Each names the entry of the document that justifies it, and the suite checks that the
// document still has that entry. `automatic` ones are recognised by the runner in any answer; the others only where a
// case declares them (`differs`), and such a case pins Kairograph's whole answer, so what Kairograph does instead is
// still asserted exactly.
// ---------------------------------------------------------------------------------------------------------------------

interface Tolerance {
  readonly doc: 'src/engine/SEMANTICS.md' | 'src/kairos-rest/COMPATIBILITY.md';
  /** Text of the entry's heading or first words, as the document has it. */
  readonly entry: string;
  readonly automatic?: true;
}

const TOLERATED = {
  'empty-results': {
    doc: 'src/kairos-rest/COMPATIBILITY.md',
    entry: '1. **Empty results are dropped**',
    automatic: true,
  },
  'metric-name-order': {
    doc: 'src/kairos-rest/COMPATIBILITY.md',
    entry: '16. **Metric names come sorted.**',
    automatic: true,
  },
  'number-spelling': {
    doc: 'src/kairos-rest/COMPATIBILITY.md',
    entry: "Doubles are written in JavaScript's shortest form",
    automatic: true,
  },
  'alias-echoed': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: '18. **`alias` is echoed**', automatic: true },
  'limit-sample-size': { doc: 'src/engine/SEMANTICS.md', entry: '**`sample_size` under a limit**', automatic: true },
  'member-order': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: 'JSON objects have no order', automatic: true },
  'last-bits': { doc: 'src/engine/SEMANTICS.md', entry: '**Deterministic sums.**', automatic: true },
  'error-text': {
    doc: 'src/kairos-rest/COMPATIBILITY.md',
    entry: "17. **Error messages are Kairograph's own.**",
    automatic: true,
  },
  'descending-ranges': { doc: 'src/engine/SEMANTICS.md', entry: '1. **Descending order through range aggregators.**' },
  'limit-per-group': { doc: 'src/engine/SEMANTICS.md', entry: '2. **Limit with time/value/bin group-bys**' },
  'negative-start': { doc: 'src/engine/SEMANTICS.md', entry: '3. **Negative start times.**' },
  'stricter-validation': { doc: 'src/engine/SEMANTICS.md', entry: '4. **Stricter validation**' },
  'case-insensitive-enums': { doc: 'src/engine/SEMANTICS.md', entry: '4. **Stricter validation**' },
  'stricter-ingest': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: '6. **Stricter ingest**' },
  'after-gaps': { doc: 'src/engine/SEMANTICS.md', entry: '5. **What follows gaps.**' },
  'trimmed-gaps-per-group': { doc: 'src/engine/SEMANTICS.md', entry: '9. **gaps with `trim` trims every group.**' },
  'rate-equal-timestamps': { doc: 'src/engine/SEMANTICS.md', entry: '6. **Rate over equal timestamps**' },
  'floored-start-time': {
    doc: 'src/engine/SEMANTICS.md',
    entry: '7. **Ranges before an explicit `start_time` are floored.**',
  },
  'non-finite-null': {
    doc: 'src/kairos-rest/COMPATIBILITY.md',
    entry: '8. **Non-finite doubles are written as `null`**',
  },
  'least-squares-precision': {
    doc: 'src/engine/SEMANTICS.md',
    entry: '**least_squares** fits on timestamps shifted',
    automatic: true,
  },
  'limits-status': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: "9. **Status codes for Kairograph's limits**" },
  'tags-bounded': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: '4. **The tags endpoint is bounded.**' },
  'all-or-nothing': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: '5. **All or nothing.**' },
  'regex-or': {
    doc: 'src/kairos-rest/COMPATIBILITY.md',
    entry: '7. **Several `regex:` values for one tag are OR-ed**',
  },
  'times-range': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: '3. **Times are whole epoch ms within ±8.64e15**' },
  'kairosdb-500': {
    doc: 'src/kairos-rest/COMPATIBILITY.md',
    entry: '19. **A bad request is a 400 where KairosDB fails with a 500.**',
  },
  'unknown-path': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: '12. **Not served**' },
  'series-group-by': { doc: 'src/kairos-rest/COMPATIBILITY.md', entry: "13. Kairograph's own `series` group-by" },
} as const satisfies Record<string, Tolerance>;

type Reason = keyof typeof TOLERATED;

// ---------------------------------------------------------------------------------------------------------------------
// Case files
// ---------------------------------------------------------------------------------------------------------------------

/** A point's value; longs past 2^53 are BigInts (parseJson). */
type Value = number | bigint | string;

/** A series written once before the cases run. Metric names use `${P}` (this file's prefix in this run). */
interface SeriesSpec {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  /** KairosDB's ingest type; absent lets each server infer it from the value, as clients do. */
  readonly type?: 'long' | 'double' | 'string';
  readonly ttl?: number;
  readonly datapoints?: readonly (readonly [number, Value])[];
  /** `count` points from `start`, `step` ms apart, valued by cycling through `values`. */
  readonly sequence?: {
    readonly start: number;
    readonly step: number;
    readonly count: number;
    readonly values: readonly Value[];
  };
  /**
   * Who writes it: `kairosdb` (default) or `kairograph` through REST, or `legacy-index`: plain CQL rows that only the
   * legacy `row_key_index` lists, as KairosDB 0.9.4-1.1 indexed series.
   */
  readonly via?: 'kairosdb' | 'kairograph' | 'legacy-index';
}

interface RequestSpec {
  readonly method?: string;
  readonly path: string;
  /** Sent as JSON text. */
  readonly body?: unknown;
  /** Sent verbatim, for bodies that are not JSON. */
  readonly text?: string;
  /** A query sent as GET `?query=` (URL-encoded JSON). */
  readonly query?: unknown;
  /** The body gzipped, with `Content-Encoding: gzip`, as collectors send it. */
  readonly gzip?: boolean;
}

/** A pinned answer: the status and the body as JSON (names with `${P}`/`${M}`). */
interface PinnedAnswer {
  status: number;
  body?: unknown;
}

interface Differs {
  readonly reason: Reason;
  kairograph?: PinnedAnswer;
  kairosdb?: PinnedAnswer;
}

/** One read: a query (POST /datapoints/query), a tags query (POST /datapoints/query/tags) or any request. */
interface ReadSpec {
  readonly query?: unknown;
  readonly tags?: unknown;
  readonly request?: RequestSpec;
  /** The answer may have no points (otherwise every query of it must have some, so that no case passes vacuously). */
  readonly empty?: boolean;
  /** Kairograph's exact error message, where its text differs from KairosDB's. */
  error?: string;
  differs?: Differs;
}

interface Dimension {
  /** Dot path into the query (`metrics.0.aggregators.0`) that each value is merged into. */
  readonly path: string;
  readonly values: Readonly<Record<string, unknown>>;
}

interface CaseSpec extends ReadSpec {
  readonly name: string;
  /**
   * A write or delete: `setup` is written before the run into two copies of its metrics (`${M}`), then `request` goes
   * to KairosDB with one copy and to Kairograph with the other, and each `then` read is sent to both servers on both
   * copies: every server must read either copy as the other does, and what each server did must read the same.
   */
  readonly mutation?: Mutation;
  /** Expands the case into one per combination of values of these dimensions (names of the file's or inline). */
  readonly cross?: readonly (string | Dimension)[];
}

/** A write or delete with the data it starts from and the reads that show what it did. */
interface Mutation {
  readonly setup?: readonly SeriesSpec[];
  readonly request: RequestSpec & Omit<ReadSpec, 'query' | 'tags' | 'request'>;
  readonly then: ReadSpec[];
}

interface CaseFile {
  readonly description: string;
  /** The setup and reads of the file's mutations that do not name their own. */
  readonly mutations?: Omit<Partial<Mutation>, 'request'>;
  readonly series?: readonly SeriesSpec[];
  /** Gateway settings of Kairograph for this file (its limits). */
  readonly gateway?: Readonly<Record<string, string>>;
  /** Merged under every case's `query` and `tags`. */
  readonly base?: unknown;
  readonly dimensions?: Readonly<Record<string, Dimension>>;
  readonly cases: CaseSpec[];
}

interface LoadedCase {
  readonly file: LoadedFile;
  readonly name: string;
  /** The case as written, where update mode writes pins (undefined for crossed cases, which cannot hold pins). */
  readonly source: CaseSpec | undefined;
  readonly spec: CaseSpec;
  /** Prefix of the two copies of a mutation case. */
  readonly copies?: { readonly kairosdb: string; readonly kairograph: string };
}

interface LoadedFile {
  readonly fileName: string;
  readonly path: string;
  readonly raw: CaseFile;
  /** `${P}` of this file in this run. */
  readonly prefix: string;
  readonly cases: LoadedCase[];
}

const CASES_DIR = join(import.meta.dirname, 'cases');
const RUN = uniquePrefix('diff');
const UPDATE = process.env.UPDATE_DIFFERENTIAL === '1';
/** How long KairosDB's ingest may take to store what it acknowledged. */
const INGEST_DEADLINE_MS = 30_000;

const FILES: LoadedFile[] = readdirSync(CASES_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((fileName) => loadFile(fileName));

function loadFile(fileName: string): LoadedFile {
  const path = join(CASES_DIR, fileName);
  const raw = parseJson(readFileSync(path, 'utf8')) as CaseFile;
  const prefix = `${RUN}${fileName.replace(/\.json$/, '')}.`;
  const file: LoadedFile = { fileName, path, raw, prefix, cases: [] };
  raw.cases.forEach((spec, index) => {
    for (const [suffix, expanded] of expand(spec, raw)) {
      const name = `${spec.name}${suffix}`;
      const n = file.cases.length;
      file.cases.push({
        file,
        name,
        source: spec.cross === undefined ? spec : undefined,
        spec: expanded,
        ...(spec.mutation !== undefined
          ? { copies: { kairosdb: `${prefix}${n}.k.`, kairograph: `${prefix}${n}.g.` } }
          : {}),
      });
    }
    if (spec.cross !== undefined && (spec.differs !== undefined || spec.error !== undefined)) {
      throw new Error(
        `${fileName} case ${index} "${spec.name}": a crossed case cannot pin answers (differs, error); write it out`,
      );
    }
  });
  return file;
}

/** The cartesian product of a case's dimensions: [name suffix, case with base and values merged into its reads]. */
function expand(spec: CaseSpec, file: CaseFile): [string, CaseSpec][] {
  const withBase = (s: CaseSpec): CaseSpec => ({
    ...s,
    ...(s.mutation !== undefined
      ? {
          mutation: {
            ...file.mutations,
            ...s.mutation,
            then: s.mutation.then ?? file.mutations?.then ?? [],
          } as Mutation,
        }
      : {}),
    ...(s.query !== undefined ? { query: merge(file.base, s.query) } : {}),
    ...(s.tags !== undefined ? { tags: merge(file.base, s.tags) } : {}),
  });
  let out: [string, CaseSpec][] = [['', withBase(spec)]];
  for (const d of spec.cross ?? []) {
    const dimension = typeof d === 'string' ? file.dimensions?.[d] : d;
    if (dimension === undefined)
      throw new Error(`case "${spec.name}" crosses an unknown dimension ${JSON.stringify(d)}`);
    out = out.flatMap(([suffix, c]) =>
      Object.entries(dimension.values).map(([label, value]): [string, CaseSpec] => [
        `${suffix} · ${label}`,
        { ...c, query: mergeAt(c.query, dimension.path, value) },
      ]),
    );
  }
  return out;
}

/**
 * Deep merge of JSON: objects member by member (a member `null` in `over` removes the one of `under`), arrays element by
 * element, anything else replaced by `over`.
 */
function merge(under: unknown, over: unknown): unknown {
  if (under === undefined) return over;
  if (over === undefined) return under;
  if (Array.isArray(under) && Array.isArray(over))
    return Array.from({ length: Math.max(under.length, over.length) }, (_, i) => merge(under[i], over[i]));
  if (isObject(under) && isObject(over)) {
    const out: Record<string, unknown> = { ...under };
    for (const [k, v] of Object.entries(over)) {
      if (v === null) delete out[k];
      else out[k] = merge(under[k], v);
    }
    return out;
  }
  return over;
}

function mergeAt(target: unknown, path: string, value: unknown): unknown {
  const wrapped = path
    .split('.')
    .reduceRight<unknown>(
      (inner, key) =>
        /^\d+$/.test(key)
          ? Object.assign(new Array(Number(key) + 1).fill(undefined), { [key]: inner })
          : { [key]: inner },
      value,
    );
  return merge(target, wrapped);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Replaces `${P}` (and `${M}` with `m`) in every string of a JSON value. */
function substitute<T>(value: T, p: string, m?: string): T {
  return parseJson(toJson(value, (v) => (typeof v === 'string' ? fill(v, p, m) : v))) as T;
}

function fill(text: string, p: string, m?: string): string {
  const out = text.replaceAll('${P}', p);
  return m === undefined ? out : out.replaceAll('${M}', m);
}

// ---------------------------------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------------------------------

const pairs = new Map<string, Pair>();
/** Cases in which each reason was needed (a case counts once per reason). */
const tolerated = new Map<Reason, number>();
let casesRun = 0;
let requestsCompared = 0;
const startedAt = performance.now();
let datasetMs = 0;

async function pairFor(file: LoadedFile): Promise<Pair> {
  const key = JSON.stringify(file.raw.gateway ?? {});
  let pair = pairs.get(key);
  if (pair === undefined) {
    pair = await openPair(file.raw.gateway ?? {});
    pairs.set(key, pair);
  }
  return pair;
}

beforeAll(async () => {
  const begin = performance.now();
  await writeDataset(await pairFor(FILES[0]!));
  datasetMs = performance.now() - begin;
}, 240_000);

afterAll(async () => {
  const lines = Object.entries(TOLERATED)
    .map(([reason, t]) => ({ reason, t, n: tolerated.get(reason as Reason) ?? 0 }))
    .filter(({ n }) => n > 0)
    .map(
      ({ reason, t, n }) =>
        `  ${String(n).padStart(4)}  ${reason} (${t.doc.replace(/^.*\//, '')}: ${t.entry.replace(/\*\*/g, '')})`,
    );
  const differing = [...tolerated.values()].reduce((a, b) => a + b, 0);
  console.log(
    [
      `differential suite: ${casesRun} cases (${requestsCompared} requests compared) in ${((performance.now() - startedAt) / 1000).toFixed(1)} s, dataset written and stored in ${(datasetMs / 1000).toFixed(1)} s`,
      `tolerated differences: ${differing} in all${differing > 0 ? ', by reason:' : ''}`,
      ...lines,
    ].join('\n'),
  );
  if (UPDATE) for (const file of FILES) writeFileSync(file.path, `${formatJson(file.raw)}\n`);
  for (const pair of pairs.values()) await pair.close();
});

describe('the differential suite', () => {
  it('points every tolerated difference at an entry its document has', () => {
    for (const [reason, t] of Object.entries(TOLERATED) as [Reason, Tolerance][]) {
      expect(
        readFileSync(join(import.meta.dirname, '../..', t.doc), 'utf8').includes(t.entry),
        `${reason}: ${t.doc} has no entry "${t.entry}"`,
      ).toBe(true);
    }
  });

  for (const file of FILES) {
    describe(file.fileName, () => {
      for (const c of file.cases) {
        it(c.name, async () => {
          const pair = await pairFor(file);
          const reasons = new Set<Reason>();
          if (c.spec.mutation !== undefined) await runMutation(pair, c, reasons);
          else await runRead(pair, c, c.spec, reasons);
          casesRun++;
          for (const r of reasons) tolerated.set(r, (tolerated.get(r) ?? 0) + 1);
        });
      }
    });
  }
});

/** A read sent to both servers on the same data. */
async function runRead(pair: Pair, c: LoadedCase, read: ReadSpec, reasons: Set<Reason>): Promise<void> {
  const request = requestOf(read, c.file.prefix);
  const [k, g] = await Promise.all([send(pair.kairosdb, request), send(pair.kairograph, request)]);
  const names = [[c.file.prefix, '${P}']] as const;
  judge(c, read, request, normalise(k, names), normalise(g, names), reasons);
}

/**
 * A write or delete done by each server on its own copy of the data, then read back by both servers on both copies.
 * KairosDB's ingest and deletes finish after they answer, so its own reads are polled until they agree.
 */
async function runMutation(pair: Pair, c: LoadedCase, reasons: Set<Reason>): Promise<void> {
  const m = c.spec.mutation!;
  const { kairosdb: kCopy, kairograph: gCopy } = c.copies!;
  const names = (copy: string) =>
    [
      [copy, '${M}'],
      [c.file.prefix, '${P}'],
    ] as const;
  const kRequest = requestOf(m.request, c.file.prefix, kCopy);
  const gRequest = requestOf(m.request, c.file.prefix, gCopy);
  const [k, g] = await Promise.all([send(pair.kairosdb, kRequest), send(pair.kairograph, gRequest)]);
  judge(c, m.request, gRequest, normalise(k, names(kCopy)), normalise(g, names(gCopy)), reasons);
  for (const read of m.then) {
    if (read.differs !== undefined && read.differs.kairosdb === undefined && !UPDATE) {
      throw new Error(
        `${c.file.fileName} "${c.name}": a difference declared after a write or delete must pin KairosDB's answer too, which tells when its write or delete has landed`,
      );
    }
    const onK = requestOf(read, c.file.prefix, kCopy);
    const onG = requestOf(read, c.file.prefix, gCopy);
    const gg = normalise(await send(pair.kairograph, onG), names(gCopy));
    // Settled: as pinned; as Kairograph's when no difference is declared; unchanged for 5 s when update mode pins it (a
    // batch usually lands within a second; review what update mode pins).
    let stableSince = performance.now();
    const settled = (answer: Answer, before: Answer | undefined) => {
      if (read.differs?.kairosdb !== undefined && !UPDATE) return pinMatches(answer, read.differs.kairosdb);
      if (read.differs === undefined) return compare(answer, gg, new Set(), onG) === undefined;
      if (before === undefined || before.text !== answer.text || before.status !== answer.status)
        stableSince = performance.now();
      return performance.now() - stableSince > 5000;
    };
    let kk = normalise(await send(pair.kairosdb, onK), names(kCopy));
    let before: Answer | undefined;
    const deadline = performance.now() + INGEST_DEADLINE_MS;
    while (!settled(kk, before) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      before = kk;
      kk = normalise(await send(pair.kairosdb, onK), names(kCopy));
    }
    judge(c, read, onG, kk, gg, reasons, 'what each server did, read by itself');
    // The same data through the other server: the pure read differential, on what each one wrote or deleted.
    const [kg, gk] = await Promise.all([send(pair.kairosdb, onG), send(pair.kairograph, onK)]);
    judge(
      c,
      { ...read, differs: undefined } as ReadSpec,
      onG,
      normalise(kg, names(gCopy)),
      gg,
      reasons,
      "Kairograph's copy read by both",
    );
    judge(
      c,
      { ...read, differs: undefined } as ReadSpec,
      onK,
      kk,
      normalise(gk, names(kCopy)),
      reasons,
      "KairosDB's copy read by both",
    );
  }
}

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly gzip?: boolean;
}

function requestOf(read: ReadSpec | RequestSpec, p: string, m?: string): Request {
  if ('query' in read && read.query !== undefined && !('path' in read))
    return { method: 'POST', path: '/api/v1/datapoints/query', body: toJson(substitute(read.query, p, m)) };
  if ('tags' in read && read.tags !== undefined)
    return { method: 'POST', path: '/api/v1/datapoints/query/tags', body: toJson(substitute(read.tags, p, m)) };
  const r = ('request' in read && read.request !== undefined ? read.request : read) as RequestSpec;
  if (r.path === undefined) throw new Error('a read needs query, tags or request');
  const path =
    fill(r.path, p, m) +
    (r.query !== undefined ? `?query=${encodeURIComponent(toJson(substitute(r.query, p, m)))}` : '');
  const body =
    r.text !== undefined ? fill(r.text, p, m) : r.body !== undefined ? toJson(substitute(r.body, p, m)) : undefined;
  return {
    method: r.method ?? 'POST',
    path,
    ...(body !== undefined ? { body } : {}),
    ...(r.gzip === true ? { gzip: true } : {}),
  };
}

async function send(server: RestServer, request: Request): Promise<RestResponse> {
  if (request.gzip === true)
    return server.call(request.method, request.path, {
      body: gzipSync(request.body ?? ''),
      headers: { 'content-encoding': 'gzip' },
    });
  return server.call(request.method, request.path, request.body !== undefined ? { body: request.body } : {});
}

/** An answer with this run's names replaced by their placeholders, so that answers on different copies compare. */
interface Answer {
  readonly status: number;
  readonly text: string;
}

function normalise(response: RestResponse, names: readonly (readonly [string, string])[]): Answer {
  let text = response.text;
  for (const [name, placeholder] of names) text = text.replaceAll(name, placeholder);
  return { status: response.status, text };
}

// ---------------------------------------------------------------------------------------------------------------------
// Judging two answers
// ---------------------------------------------------------------------------------------------------------------------

function judge(
  c: LoadedCase,
  read: ReadSpec,
  request: Request,
  k: Answer,
  g: Answer,
  reasons: Set<Reason>,
  stage = '',
): void {
  requestsCompared++;
  const where = `${c.file.fileName} "${c.name}"${stage ? ` (${stage})` : ''}`;
  const show = () =>
    `\n  request: ${request.method} ${request.path} ${request.body ?? ''}\n  KairosDB:   ${k.status} ${k.text.slice(0, 6000)}\n  Kairograph: ${g.status} ${g.text.slice(0, 6000)}`;
  if (g.status >= 500) throw new Error(`${where}: Kairograph answered ${g.status}, which only a failure may${show()}`);
  if (read.differs !== undefined) {
    judgeDeclared(c, read, request, k, g, reasons, where, show);
    return;
  }
  const local = new Set<Reason>();
  const difference = compare(k, g, local, request);
  if (difference !== undefined)
    throw new Error(`${where}: the answers differ ${difference}, and no tolerated difference covers it${show()}`);
  if (local.has('error-text')) {
    const message = errorsOf(g)?.[0];
    if (UPDATE && c.source !== undefined && message !== undefined) sourceOf(c, read).error = message;
    else if (read.error !== message) {
      throw new Error(
        `${where}: the error texts differ, so the case must pin Kairograph's message: "error": ${JSON.stringify(message)} (it has ${JSON.stringify(read.error)})${show()}`,
      );
    }
  }
  if (!read.empty && k.status === 200 && request.path === '/api/v1/datapoints/query' && !everyQueryHasPoints(k)) {
    throw new Error(
      `${where}: a query of this case has no points on either server; mark the case "empty": true if that is the point${show()}`,
    );
  }
  for (const r of local) reasons.add(r);
}

/**
 * The object of the case file a read came from, where update mode writes what it pins: the case itself, or for a
 * mutation its request or `then` item, which expansion leaves as they are in the file.
 */
function sourceOf(c: LoadedCase, read: ReadSpec): ReadSpec {
  return read === c.spec ? c.source! : read;
}

/**
 * A declared difference: Kairograph's answer must be the pinned one, KairosDB's the pinned one when pinned, and the two
 * must still differ (a difference that went away is a stale declaration).
 */
function judgeDeclared(
  c: LoadedCase,
  read: ReadSpec,
  request: Request,
  k: Answer,
  g: Answer,
  reasons: Set<Reason>,
  where: string,
  show: () => string,
): void {
  const d = read.differs!;
  if (!(d.reason in TOLERATED))
    throw new Error(
      `${where}: "${d.reason}" is not a tolerated difference; add it to TOLERATED with the entry that documents it`,
    );
  if (UPDATE && c.source !== undefined) {
    const target = sourceOf(c, read).differs!;
    target.kairograph = pinOf(g);
    // KairosDB's answer is pinned when short enough to read: it shows what the difference is about. Its 500s by status
    // only: HotSpot drops the message of an exception thrown often (OmitStackTraceInFastThrow), so a KairosDB that has
    // run a while answers `{"errors":[null]}` where a fresh one names the exception.
    if (k.status >= 500) target.kairosdb = { status: k.status };
    else if (k.text.length <= 1500) target.kairosdb = pinOf(k);
    else delete target.kairosdb;
  } else {
    if (d.kairograph === undefined || !pinMatches(g, d.kairograph))
      throw new Error(
        `${where}: Kairograph's answer is not the one pinned for "${d.reason}": ${toJson(d.kairograph)}${show()}`,
      );
    if (d.kairosdb !== undefined && !pinMatches(k, d.kairosdb))
      throw new Error(
        `${where}: KairosDB's answer is not the one pinned for "${d.reason}": ${toJson(d.kairosdb)}${show()}`,
      );
  }
  if (compare(k, g, new Set(), request) === undefined)
    throw new Error(`${where}: the answers agree, so "${d.reason}" is no longer needed here${show()}`);
  reasons.add(d.reason);
}

function pinOf(a: Answer): PinnedAnswer {
  return a.text === '' ? { status: a.status } : { status: a.status, body: parseJson(a.text) };
}

/** A pin without a body matches an answer without one, or any 5xx of that status (see judgeDeclared). */
function pinMatches(a: Answer, pin: PinnedAnswer): boolean {
  if (a.status !== pin.status) return false;
  if (pin.body === undefined) return a.text === '' || a.status >= 500;
  try {
    return isDeepStrictEqual(parseJson(a.text), pin.body);
  } catch {
    return false;
  }
}

/**
 * Where two answers differ beyond the automatic tolerances (undefined when they agree); the tolerances used are added
 * to `reasons`.
 */
function compare(k: Answer, g: Answer, reasons: Set<Reason>, request: Request): string | undefined {
  if (k.status !== g.status) return `in status (${k.status} and ${g.status})`;
  if (k.text === g.text) return undefined;
  if (k.status >= 400) {
    // Both refused the request alike; the texts are each server's own (COMPATIBILITY.md 17), so only the shape counts.
    const ke = errorsOf(k);
    const ge = errorsOf(g);
    if (ke === undefined || ge === undefined) return 'in the shape of the error (not {"errors":[message, ...]})';
    reasons.add('error-text');
    return undefined;
  }
  let kj: unknown;
  let gj: unknown;
  try {
    kj = parseExact(k.text);
    gj = parseExact(g.text);
  } catch {
    return 'in text that is not JSON';
  }
  if (isObject(kj) && Array.isArray(kj.queries) && isObject(gj) && Array.isArray(gj.queries)) {
    const metrics = queryMetrics(request);
    const gQueries = gj.queries;
    kj = {
      ...kj,
      queries: kj.queries.map((q, i) =>
        limitSampleSize(dropEmptyResults(q, reasons), gQueries[i], metrics[i], reasons),
      ),
    };
    gj = { ...gj, queries: gQueries.map((q, i) => dropAlias(q, (kj as { queries: unknown[] }).queries[i], reasons)) };
  }
  if (
    isObject(kj) &&
    Array.isArray(kj.results) &&
    kj.results.every((r) => typeof r === 'string') &&
    !('queries' in kj)
  ) {
    const sorted = [...(kj.results as string[])].sort();
    if (!isDeepStrictEqual(sorted, kj.results)) reasons.add('metric-name-order');
    kj = { ...kj, results: sorted };
  }
  const fitted = request.body?.includes('"least_squares"') === true;
  return diff(kj, gj, '$', reasons, fitted);
}

/** KairosDB 1.3.0 answers a group left without points as `{"name","tags":{},"values":[]}`; Kairograph leaves it out. */
function dropEmptyResults(query: unknown, reasons: Set<Reason>): unknown {
  if (!isObject(query) || !Array.isArray(query.results)) return query;
  const kept = query.results.filter((r) => !(isObject(r) && Array.isArray(r.values) && r.values.length === 0));
  if (kept.length === query.results.length) return query;
  reasons.add('empty-results');
  return { ...query, results: kept };
}

/** The metrics of a query request's body, to see which have a limit. */
function queryMetrics(request: Request): Record<string, unknown>[] {
  try {
    const body = JSON.parse(
      request.body ?? (decodeURIComponent(request.path.split('?query=')[1] ?? '') || 'null'),
    ) as unknown;
    return isObject(body) && Array.isArray(body.metrics) ? body.metrics.map((m) => (isObject(m) ? m : {})) : [];
  } catch {
    return [];
  }
}

/**
 * Under a limit, KairosDB reads up to `limit` points from every partition of the range, where Kairograph opens the
 * partitions in time order and stops when the limit is reached (or, with time/value/bin group-bys, reads them all), so
 * `sample_size` may differ; the points may not.
 */
function limitSampleSize(
  query: unknown,
  gQuery: unknown,
  metric: Record<string, unknown> | undefined,
  reasons: Set<Reason>,
): unknown {
  if (!isObject(query) || !isObject(gQuery) || metric === undefined || !(Number(metric.limit) > 0)) return query;
  if (isDeepStrictEqual(query.sample_size, gQuery.sample_size)) return query;
  reasons.add('limit-sample-size');
  return { ...query, sample_size: gQuery.sample_size };
}

/** KairosDB 1.3.0 ignores a metric's `alias`; Kairograph echoes it on each result, as KairosDB does since f3ad6260 (2022). */
function dropAlias(gQuery: unknown, kQuery: unknown, reasons: Set<Reason>): unknown {
  if (!isObject(gQuery) || !Array.isArray(gQuery.results) || !isObject(kQuery) || !Array.isArray(kQuery.results))
    return gQuery;
  if (
    kQuery.results.some((r) => isObject(r) && 'alias' in r) ||
    !gQuery.results.some((r) => isObject(r) && 'alias' in r)
  )
    return gQuery;
  reasons.add('alias-echoed');
  return {
    ...gQuery,
    results: gQuery.results.map((r) =>
      isObject(r) ? Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'alias')) : r,
    ),
  };
}

function errorsOf(a: Answer): string[] | undefined {
  try {
    const body = JSON.parse(a.text) as unknown;
    if (
      isObject(body) &&
      Array.isArray(body.errors) &&
      body.errors.length > 0 &&
      body.errors.every((e) => typeof e === 'string' && e !== '')
    )
      return body.errors as string[];
  } catch {
    // not JSON: no errors body
  }
  return undefined;
}

function everyQueryHasPoints(a: Answer): boolean {
  const body = JSON.parse(a.text) as { queries: { results: { values: unknown[] }[] }[] };
  return body.queries.every((q) => q.results.some((r) => r.values.length > 0));
}

/** A JSON number kept as its text, so that longs past 2^53 and the spelling of doubles can be compared. */
class ExactNumber {
  constructor(readonly raw: string) {}
}

/** JSON.parse, but numbers become ExactNumbers. */
function parseExact(text: string): unknown {
  return JSON.parse(markNumbers(text), (_, v: unknown) =>
    typeof v === 'string' && v.startsWith('\u0001') ? new ExactNumber(v.slice(1)) : v,
  );
}

/**
 * JSON.parse, but integers past 2^53 become BigInts: case files and answers hold longs up to 2^63 that a double would
 * round (a client sends them as digits, and so must the suite).
 */
function parseJson(text: string): unknown {
  return JSON.parse(markNumbers(text), (_, v: unknown) => {
    if (typeof v !== 'string' || !v.startsWith('\u0001')) return v;
    const raw = v.slice(1);
    const n = Number(raw);
    return /^-?\d+$/.test(raw) && !Number.isSafeInteger(n) ? BigInt(raw) : n;
  });
}

/** JSON.stringify that writes BigInts as their digits; `map` may replace any value first. */
function toJson(value: unknown, map: (v: unknown) => unknown = (v) => v): string {
  return JSON.stringify(value, (_, v: unknown) => {
    const mapped = map(v);
    return typeof mapped === 'bigint' ? `\u0001${mapped}` : mapped;
  }).replace(/"\\u0001(-?\d+)"/g, '$1');
}

/** The text with every number token outside strings turned into a string `"\u0001<token>"`. */
function markNumbers(text: string): string {
  let marked = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      marked += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '-' || (ch >= '0' && ch <= '9')) {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))!;
      marked += `"\\u0001${m[0]}"`;
      i += m[0].length;
    } else {
      marked += ch;
      i++;
    }
  }
  return marked;
}

/** The first place where `k` and `g` differ beyond the automatic tolerances of numbers; undefined when none. */
function diff(k: unknown, g: unknown, path: string, reasons: Set<Reason>, fitted: boolean): string | undefined {
  if (k instanceof ExactNumber && g instanceof ExactNumber) return diffNumbers(k.raw, g.raw, path, reasons, fitted);
  if (Array.isArray(k) && Array.isArray(g)) {
    if (k.length !== g.length) return `at ${path} (${k.length} and ${g.length} items)`;
    for (let i = 0; i < k.length; i++) {
      const d = diff(k[i], g[i], `${path}[${i}]`, reasons, fitted);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(k) && isObject(g)) {
    const keys = Object.keys(k);
    if (!isDeepStrictEqual([...keys].sort(), Object.keys(g).sort()))
      return `at ${path} (keys ${keys.join()} and ${Object.keys(g).join()})`;
    if (!isDeepStrictEqual(keys, Object.keys(g))) reasons.add('member-order');
    for (const key of keys) {
      const d = diff(k[key], g[key], `${path}.${key}`, reasons, fitted);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return isDeepStrictEqual(k, g) ? undefined : `at ${path} (${show(k)} and ${show(g)})`;
}

function show(v: unknown): string {
  return v instanceof ExactNumber ? v.raw : JSON.stringify(v);
}

/**
 * Numbers agree when they are the same number spelt differently (Java's `1.5E300`, JavaScript's `1.5e+300`), or doubles
 * whose last bits differ because Kairograph sums compensated and keeps a running variance: at most 1e-12 apart
 * relatively, or 1e-13 absolutely where a difference of nearly equal values (dev's `neg_sd`) leaves a result near 0 (the
 * datasets' values are below 100). A query with least_squares is allowed 1e-8: KairosDB fits on raw epoch milliseconds
 * and loses digits that Kairograph keeps. Longs must be exact.
 */
function diffNumbers(
  kRaw: string,
  gRaw: string,
  path: string,
  reasons: Set<Reason>,
  fitted: boolean,
): string | undefined {
  if (kRaw === gRaw) return undefined;
  const integral = (raw: string) => /^-?\d+$/.test(raw);
  if (integral(kRaw) && integral(gRaw))
    return BigInt(kRaw) === BigInt(gRaw) ? undefined : `at ${path} (${kRaw} and ${gRaw})`;
  const kv = Number(kRaw);
  const gv = Number(gRaw);
  if (kv === gv) {
    reasons.add('number-spelling');
    return undefined;
  }
  const apart = Math.abs(kv - gv);
  const magnitude = Math.max(Math.abs(kv), Math.abs(gv));
  if (apart <= 1e-12 * magnitude || apart <= 1e-13) {
    reasons.add('last-bits');
    return undefined;
  }
  if (fitted && apart <= 1e-8 * magnitude) {
    reasons.add('least-squares-precision');
    return undefined;
  }
  return `at ${path} (${kRaw} and ${gRaw})`;
}

// ---------------------------------------------------------------------------------------------------------------------
// The dataset: every file's series and every mutation's setup (in both copies), written once, then polled until
// KairosDB's asynchronous ingest has stored all of it.
// ---------------------------------------------------------------------------------------------------------------------

interface Written {
  readonly spec: SeriesSpec;
  /** The metric name in this run. */
  readonly metric: string;
}

async function writeDataset(pair: Pair): Promise<void> {
  const all: Written[] = [];
  for (const file of FILES) {
    for (const s of file.raw.series ?? []) all.push({ spec: s, metric: fill(s.metric, file.prefix) });
    for (const c of file.cases) {
      for (const s of c.spec.mutation?.setup ?? []) {
        for (const copy of [c.copies!.kairosdb, c.copies!.kairograph])
          all.push({ spec: s, metric: fill(s.metric, file.prefix, copy) });
      }
    }
  }
  const via = (w: Written) => w.spec.via ?? 'kairosdb';
  for (const server of ['kairosdb', 'kairograph'] as const) {
    const bodies = chunks(all.filter((w) => via(w) === server).map(restMetric), 20_000);
    for (const body of bodies) {
      const answer = await pair[server].call('POST', '/api/v1/datapoints', { body: toJson(body) });
      if (answer.status !== 204)
        throw new Error(`writing the dataset through ${server}: ${answer.status} ${answer.text}`);
    }
  }
  await writeLegacy(
    pair,
    all.filter((w) => via(w) === 'legacy-index'),
  );
  // One count query per metric: its sample_size is the points KairosDB has stored so far.
  const expected = new Map<string, Set<string>>();
  for (const w of all) {
    const seen = expected.get(w.metric) ?? expected.set(w.metric, new Set()).get(w.metric)!;
    for (const [t, v] of pointsOf(w.spec))
      seen.add(`${JSON.stringify(Object.entries(w.spec.tags).sort())} ${w.spec.type ?? kindOf(v)} ${t}`);
  }
  const metrics = [...expected.keys()];
  const times = all.flatMap((w) => pointsOf(w.spec).map(([t]) => t));
  const body = {
    // Two row widths early: KairosDB looks rows up from the start's row time, which misses rows of negative timestamps
    // that start up to a row width before their points (SEMANTICS.md, Deliberate differences 3).
    start_absolute: times.reduce((a, b) => Math.min(a, b)) - 2 * 1_814_400_000,
    end_absolute: times.reduce((a, b) => Math.max(a, b)),
    metrics: metrics.map((name) => ({
      name,
      aggregators: [{ name: 'count', sampling: { value: 1000, unit: 'years' } }],
    })),
  };
  const want = metrics.map((m) => expected.get(m)!.size).join();
  await until(
    pair.kairosdb,
    'POST',
    '/api/v1/datapoints/query',
    { body },
    (a) => sampleSizes(a).join() === want,
    INGEST_DEADLINE_MS,
  ).catch((error: unknown) => {
    throw new Error(
      `KairosDB did not store the dataset (sample sizes ${want} of ${metrics.join()} awaited): ${String(error)}`,
    );
  });
}

function kindOf(v: Value): string {
  return typeof v === 'string' ? 'string' : typeof v === 'bigint' || Number.isInteger(v) ? 'long' : 'double';
}

function pointsOf(s: SeriesSpec): [number, Value][] {
  if (s.datapoints !== undefined) return s.datapoints.map(([t, v]) => [t, v]);
  const q = s.sequence!;
  return Array.from({ length: q.count }, (_, i) => [q.start + i * q.step, q.values[i % q.values.length]!]);
}

function restMetric(w: Written): Record<string, unknown> {
  return {
    name: w.metric,
    tags: w.spec.tags,
    ...(w.spec.type !== undefined ? { type: w.spec.type } : {}),
    ...(w.spec.ttl !== undefined ? { ttl: w.spec.ttl } : {}),
    datapoints: pointsOf(w.spec),
  };
}

/** Write bodies of at most about `points` points each (KairosDB's ingest takes large batches, but slowly). */
function chunks(metrics: Record<string, unknown>[], points: number): Record<string, unknown>[][] {
  const out: Record<string, unknown>[][] = [];
  let size = points;
  for (const m of metrics) {
    const n = (m.datapoints as unknown[]).length;
    if (size + n > points) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(m);
    size += n;
  }
  return out;
}

/**
 * Rows as KairosDB 0.9.4-1.1 indexed them: listed only in `row_key_index` (partition = the metric's UTF-8 name, column =
 * the whole row key), with `string_index` naming the metric and cells in the keyspace's unit. Write times in ms, as
 * KairosDB's.
 */
async function writeLegacy(pair: Pair, series: Written[]): Promise<void> {
  if (series.length === 0) return;
  const spec: RowSpec = await pair.store.spec();
  const cql = await plainClient();
  const ks = pair.keyspace;
  try {
    const timestamp = Date.now();
    const run = (query: string, params: unknown[]) => cql.execute(query, params, { prepare: true, timestamp });
    for (const w of series) {
      const type = w.spec.type ?? 'long';
      const byRow = new Map<number, [number, Value][]>();
      for (const point of pointsOf(w.spec)) {
        const rowTime = rowTimeOf(point[0], spec.width);
        (byRow.get(rowTime) ?? byRow.set(rowTime, []).get(rowTime)!).push(point);
      }
      await run(`INSERT INTO ${ks}.string_index (key, column1, value) VALUES (?, ?, 0x00)`, [
        Buffer.from('metric_names'),
        w.metric,
      ]);
      for (const [rowTime, points] of byRow) {
        const key = Buffer.from(
          encodeRowKey({ metric: w.metric, rowTime, dataType: DATASTORE_TYPES[type], tags: w.spec.tags }),
        );
        await run(`INSERT INTO ${ks}.row_key_index (key, column1, value) VALUES (?, ?, ?)`, [
          Buffer.from(w.metric),
          key,
          Buffer.alloc(0),
        ]);
        for (const [t, v] of points) {
          const column = Buffer.alloc(4);
          column.writeUInt32BE(encodeColumn(spec, rowTime, t));
          const value =
            type === 'string'
              ? encodeString(v as string)
              : type === 'double'
                ? encodeDouble(Number(v))
                : encodeLong(v as number | bigint);
          await run(
            `INSERT INTO ${ks}.data_points (key, column1, value) VALUES (?, ?, ?) USING TTL 0 AND TIMESTAMP ?`,
            [key, column, Buffer.from(value), timestamp],
          );
        }
      }
    }
  } finally {
    await cql.shutdown();
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Update mode's writer: JSON with two-space indentation, short values on one line, lists of short items filling lines.
// ---------------------------------------------------------------------------------------------------------------------

function formatJson(value: unknown, indent = ''): string {
  const flat = toJson(value);
  if (flat === undefined) return 'null';
  if (flat.length + indent.length <= 118 || typeof value !== 'object' || value === null) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = value.map((v) => toJson(v) ?? 'null');
    if (items.every((item) => item.length <= 40)) {
      const lines: string[] = [];
      for (const item of items) {
        const last = lines.length - 1;
        if (last >= 0 && inner.length + lines[last]!.length + item.length + 1 <= 118) lines[last] += `,${item}`;
        else lines.push(item);
      }
      return `[\n${lines.map((line) => inner + line).join(',\n')}\n${indent}]`;
    }
    return `[\n${value.map((v) => inner + formatJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatJson(v, inner)}`).join(',\n')}\n${indent}}`;
}
