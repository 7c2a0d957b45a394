/**
 * PromQL's series over a house source, on the one read path: a selector's matchers on `__name__` become the metrics to
 * read (an exact name, or a regular expression over the source's metric names), its other matchers the tag filter the
 * source's index reads use (exact values are pushed into them), and each metric is read as a query of the request
 * (RequestScope.openRead: its turn, budgets, loaders, lane and statistics) through the engine's series streams. Long
 * and double values are samples; series of other types are skipped with a warning.
 */
import { BudgetTracker } from '../engine/budget.js';
import { METRIC_NAME, type Label, type Labels } from '../engine/promql/labels.js';
import { type Matcher, matches, matchesEmpty } from '../engine/promql/matcher.js';
import { PromqlError } from '../engine/promql/promql-error.js';
import type { SampleChunk, SelectedSeries, SelectHints, SeriesAccess } from '../engine/promql/series-access.js';
import { streamSeries } from '../engine/series-stream.js';
import type { Slice, Tags } from '../model/series.js';
import type { SeriesPredicate } from '../model/tag-filter.js';
import type { Source } from '../sources/source.js';
import { metricNames } from './metric-names.js';
import type { RequestScope } from './request-scope.js';

/** One series as the PromQL front end lists it (labels, series): its labels and its type. */
interface FoundSeries {
  readonly labels: Labels;
  readonly type: 'number' | 'text' | 'complex';
}

export class SourceSeriesAccess implements SeriesAccess {
  /** What the answer's `warnings` should carry besides the engine's: series skipped, partitions not decoded. */
  readonly warnings = new Set<string>();
  private selectors = 0;

  /**
   * `labelPrefix` goes before each selector's label in the statistics (GraphQL's response path: a request may hold
   * several PromQL queries). The samples the series hold are the engine's to count (PROMQL_MAX_SAMPLES).
   */
  constructor(
    private readonly ctx: RequestScope,
    private readonly source: Source,
    private readonly labelPrefix = '',
  ) {}

  async *select(matchers: readonly Matcher[], hints: SelectHints): AsyncIterable<SelectedSeries> {
    const label = `${this.labelPrefix}selector[${this.selectors++}]`;
    const range = { startMs: Math.floor(hints.startMs), endMs: Math.ceil(hints.endMs) };
    for await (const found of readSeries(this.ctx, this.source, matchers, range, label, 'points', this.warnings)) {
      if (found.type !== 'number') {
        this.warnings.add(
          `series of ${JSON.stringify(labelOf(found.labels, METRIC_NAME))} with ${found.type} values were skipped: PromQL reads long and double values only`,
        );
        continue;
      }
      yield { labels: found.labels, chunks: samplesOf(found.slices) };
    }
  }
}

/**
 * Visits the series of every matcher set (`match[]`) without reading a point: what /labels, /label/<name>/values and
 * /series answer. A series two sets select is visited twice; nothing is kept here, so a caller that wants label
 * names holds only names. A set without a metric matcher looks through every metric of the source.
 */
export async function visitSeriesLabels(
  ctx: RequestScope,
  source: Source,
  matcherSets: readonly (readonly Matcher[])[],
  range: { readonly startMs: number; readonly endMs: number },
  warnings: Set<string>,
  visit: (labels: Labels) => void,
): Promise<void> {
  for (const [i, matchers] of matcherSets.entries())
    for await (const found of readSeries(ctx, source, matchers, range, `match[${i}]`, 'labels', warnings))
      visit(found.labels);
}

interface ReadSeries extends FoundSeries {
  readonly slices: AsyncIterable<Slice>;
}

/**
 * Every metric the matchers name, read as one query of the request each. `points`: the number series' points will be
 * read (they are started ahead where reads wait), and a selector must name its metric; `labels`: only the series are
 * wanted, of every metric when none is named.
 */
async function* readSeries(
  ctx: RequestScope,
  source: Source,
  matchers: readonly Matcher[],
  range: { readonly startMs: number; readonly endMs: number },
  label: string,
  wanted: 'points' | 'labels',
  warnings: Set<string>,
): AsyncGenerator<ReadSeries> {
  const nameMatchers = matchers.filter((m) => m.name === METRIC_NAME);
  const tagMatchers = matchers.filter((m) => m.name !== METRIC_NAME);
  const predicate = tagPredicate(tagMatchers);
  const readAhead = wanted === 'points' ? (type: string) => type === 'number' : undefined;
  for (const metric of await metricsOf(source, nameMatchers, wanted === 'labels')) {
    const read = await ctx.openRead(source, label, metric);
    const tracker = new BudgetTracker(read.engine.budgets, read.engine.stats, read.engine.request);
    const found: string[] = [];
    try {
      for await (const series of streamSeries(metric, range, predicate, read.engine, tracker, found, readAhead))
        yield { labels: labelsOf(metric, series.tags), type: series.type, slices: series.slices };
    } catch (error) {
      throw read.fail(error);
    }
    read.close(found);
    for (const warning of found) warnings.add(warning);
  }
}

/**
 * The metrics a selector reads: the name of an `=` matcher, or the source's names that pass a regular expression
 * (listed from the literal text it starts with), filtered by every matcher on `__name__`.
 */
async function metricsOf(source: Source, nameMatchers: readonly Matcher[], everyMetric: boolean): Promise<string[]> {
  const exact = nameMatchers.find((m) => m.op === '=' && m.value !== '');
  if (exact !== undefined) return nameMatchers.every((m) => matches(m, exact.value)) ? [exact.value] : [];
  const regex = nameMatchers.find((m) => m.op === '=~' && !matchesEmpty(m));
  if (regex === undefined && !everyMetric)
    throw new PromqlError(
      'bad_data',
      'a selector must name its metric with __name__="<name>" or __name__=~"<regular expression>" (or a metric name before its braces): series are found by metric',
    );
  const names = await metricNames(source, regex === undefined ? '' : literalPrefix(regex.value), 'match[]');
  return names.filter((name) => nameMatchers.every((m) => matches(m, name)));
}

/** The text every match of an anchored regular expression starts with ('' when alternatives or flags make it unsure). */
export function literalPrefix(pattern: string): string {
  if (hasTopLevelAlternative(pattern) || pattern.startsWith('(?')) return '';
  let prefix = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    let literal: string | undefined;
    if (c === '\\' && i + 1 < pattern.length && /[.\-/:+*?()[\]{}^$\\]/.test(pattern[i + 1]!)) {
      literal = pattern[i + 1]!;
      i++;
    } else if (/[A-Za-z0-9_:\-/ ]/.test(c)) literal = c;
    if (literal === undefined) break;
    // A quantifier after it makes the character optional or repeated: the prefix stops before it.
    if (/[?*{]/.test(pattern[i + 1] ?? '')) break;
    prefix += literal;
  }
  return prefix;
}

/** Whether `a|b` splits the whole pattern (a `|` inside a group or a class only splits that). */
function hasTopLevelAlternative(pattern: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/**
 * The tag matchers as the source's series filter: a tag a series lacks has the value '', as a label it lacks does in
 * Prometheus; `=` values, and `=~` alternatives of plain words, are the exact values its index reads may use.
 */
export function tagPredicate(tagMatchers: readonly Matcher[]): SeriesPredicate {
  const exact = new Map<string, readonly string[]>();
  for (const m of tagMatchers) {
    const values = m.op === '=' ? [m.value] : m.op === '=~' ? plainAlternatives(m.value) : undefined;
    if (values === undefined || values.some((v) => v === '') || matchesEmpty(m)) continue;
    const before = exact.get(m.name);
    exact.set(m.name, before === undefined ? values : before.filter((v) => values.includes(v)));
  }
  const predicate = (tags: Tags) =>
    tagMatchers.every((m) => matches(m, Object.hasOwn(tags, m.name) ? tags[m.name]! : ''));
  return Object.assign(predicate, { exact });
}

/** `a|b|c` of plain words (Grafana's multi-value variables); undefined for any other pattern. */
function plainAlternatives(pattern: string): string[] | undefined {
  const words = pattern.split('|').map((w) => w.replaceAll('\\.', '.').replaceAll('\\-', '-'));
  return words.every((w) => /^[A-Za-z0-9_.:\-/ ]+$/.test(w)) ? [...new Set(words)] : undefined;
}

/** A series' labels: `__name__` and its tags (an empty value is no label in Prometheus; a tag `__name__` loses). */
export function labelsOf(metric: string, tags: Tags): Labels {
  const labels: Label[] = [{ name: METRIC_NAME, value: metric }];
  for (const name of Object.keys(tags)) {
    const value = tags[name]!;
    if (value !== '' && name !== METRIC_NAME) labels.push({ name, value });
  }
  return labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function labelOf(labels: Labels, name: string): string {
  return labels.find((l) => l.name === name)?.value ?? '';
}

/**
 * Number slices as PromQL's chunks, views of the slices' own columns. Points of one time in two partitions of a
 * series (a long and a double written at the same time) are one sample to Prometheus: the first is kept.
 */
async function* samplesOf(slices: AsyncIterable<Slice>): AsyncGenerator<SampleChunk> {
  let last = Number.NEGATIVE_INFINITY;
  for await (const slice of slices) {
    if (slice.kind !== 'long' && slice.kind !== 'double') continue;
    let from = 0;
    const ts = slice.timestamps;
    while (from < ts.length && ts[from]! <= last) from++;
    if (from === ts.length) continue;
    last = ts[ts.length - 1]!;
    yield from === 0
      ? { timestampsMs: ts, values: slice.values }
      : { timestampsMs: ts.subarray(from), values: slice.values.subarray(from) };
  }
}
