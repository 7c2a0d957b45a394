/**
 * What Grafana's metric browser, variables, alerting UI and flavour detection ask besides queries: label names and
 * values, series, metadata, build information, and the empty answers that keep exemplars and rules working.
 */
import { createRequire } from 'node:module';
import { metricNames } from '../app/metric-names.js';
import { visitSeriesLabels } from '../app/promql-series.js';
import type { Labels } from '../engine/promql/labels.js';
import { METRIC_NAME } from '../engine/promql/labels.js';
import type { Matcher } from '../engine/promql/matcher.js';
import { parseExpr } from '../engine/promql/parser.js';
import { PromqlError, parseErrorMessage } from '../engine/promql/promql-error.js';
import { formParams, type Call, type Reply, type PromRoute } from './prom-endpoint.js';
import { PromApiError } from './prom-errors.js';
import { checkLabelName, limitParam, MAX_TIME_MS, MIN_TIME_MS, timeParam, unescapeLabelName } from './prom-params.js';

const KAIROGRAPH_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/**
 * The Prometheus version buildinfo claims: the PromQL engine follows Prometheus 3's semantics (quoted UTF-8 names),
 * and Grafana reads the version to choose what it may ask (it must be semver). No `features`: their presence makes
 * Grafana take the source for Mimir and look for a ruler.
 */
const PROMETHEUS_VERSION = '3.0.0';

export const METADATA_ROUTES: readonly PromRoute[] = [
  { path: '/labels', methods: { GET: [labels, 'read'], POST: [labels, 'read'] } },
  // GET only, as in Prometheus (Grafana retries a refused POST as GET).
  { path: '/label/:name/values', methods: { GET: [labelValues, 'read'] } },
  { path: '/series', methods: { GET: [series, 'read'], POST: [series, 'read'] } },
  { path: '/metadata', methods: { GET: [metadata, 'read'] } },
  { path: '/query_exemplars', methods: { GET: [exemplars, 'read'], POST: [exemplars, 'read'] } },
  { path: '/rules', methods: { GET: [rules, 'read'] } },
  { path: '/status/buildinfo', methods: { GET: [buildInfo, 'read'] } },
  { path: '/status/flags', methods: { GET: [flags, 'read'] } },
];

/** Label names of the series `match[]` selects in the range, or of every series of the source. */
async function labels(call: Call): Promise<Reply> {
  const params = await formParams(call);
  const limit = limitParam(params);
  const warnings = new Set<string>();
  const names = new Set<string>();
  await visitLabelSets(call, params, matcherSets(params, true), warnings, (labels) => {
    for (const l of labels) names.add(l.name);
  });
  return limited([...names].sort(), limit, warnings);
}

async function labelValues(call: Call): Promise<Reply> {
  const params = call.query;
  const encoded = call.path['name'] ?? '';
  let name: string;
  try {
    name = unescapeLabelName(decodeURIComponent(encoded));
  } catch {
    name = encoded;
  }
  checkLabelName(name);
  const limit = limitParam(params);
  const warnings = new Set<string>();
  const sets = matcherSets(params, true);
  // Metric names are listed by the source without finding a series.
  if (name === METRIC_NAME && sets.length === 1 && sets[0]!.length === 0)
    return limited(await metricNames(call.source, '', 'match[]'), limit, warnings);
  const values = new Set<string>();
  await visitLabelSets(call, params, sets, warnings, (labels) => {
    for (const l of labels) if (l.name === name) values.add(l.value);
  });
  return limited([...values].sort(), limit, warnings);
}

async function series(call: Call): Promise<Reply> {
  const params = await formParams(call);
  const limit = limitParam(params);
  const sets = matcherSets(params, false);
  if (sets.length === 0) throw new PromApiError('bad_data', 'no match[] parameter provided');
  const warnings = new Set<string>();
  // Each series once, in the order found, however many sets select it.
  const found = new Map<string, Record<string, string>>();
  await visitLabelSets(call, params, sets, warnings, (labels) => {
    let key = '';
    for (const l of labels) key += `${l.name}\xff${l.value}\xfe`;
    if (!found.has(key)) found.set(key, Object.fromEntries(labels.map((l) => [l.name, l.value])));
  });
  return limited([...found.values()], limit, warnings);
}

async function metadata(): Promise<Reply> {
  return { data: { value: {} } };
}

/** Exemplars are not kept: none. Grafana probes this with `query=test` when a data source opens. */
async function exemplars(): Promise<Reply> {
  return { data: { value: [] } };
}

/** No recording or alerting rules are evaluated here. */
async function rules(): Promise<Reply> {
  return { data: { value: { groups: [] } } };
}

async function buildInfo(): Promise<Reply> {
  return {
    data: {
      value: {
        version: PROMETHEUS_VERSION,
        revision: `kairograph-${KAIROGRAPH_VERSION}`,
        branch: '',
        buildUser: '',
        buildDate: '',
        goVersion: '',
      },
    },
  };
}

/**
 * Not served: Grafana's alerting UI takes a source whose /status/flags answers 200 for Thanos and then looks for
 * Thanos's ruler, which is not here. A 404 keeps it a plain Prometheus, whose rules it reads from /rules.
 */
async function flags(): Promise<Reply> {
  throw new PromApiError(
    'not_found',
    'status/flags is not served: Kairograph has no command-line flags of Prometheus to show',
  );
}

/** Visits the label sets of the series the matcher sets select in [start, end]. */
function visitLabelSets(
  call: Call,
  params: URLSearchParams,
  sets: readonly (readonly Matcher[])[],
  warnings: Set<string>,
  visit: (labels: Labels) => void,
): Promise<void> {
  const startMs = timeParam(params, 'start', MIN_TIME_MS);
  const endMs = timeParam(params, 'end', MAX_TIME_MS);
  if (endMs < startMs) throw new PromApiError('bad_data', 'end timestamp must not be before start time');
  return visitSeriesLabels(call.ctx, call.source, sets, { startMs, endMs }, warnings, visit);
}

/**
 * `match[]`'s selectors as matcher sets; none given is one empty set (every series) where `everything` allows it.
 * A selector that matches every series only through matchers of the empty value is refused, as Prometheus does.
 */
function matcherSets(params: URLSearchParams, everything: boolean): Matcher[][] {
  const texts = params.getAll('match[]');
  if (texts.length === 0) return everything ? [[]] : [];
  return texts.map((text) => {
    let expr: ReturnType<typeof parseExpr>;
    try {
      expr = parseExpr(text);
    } catch (error) {
      if (error instanceof PromqlError) throw new PromApiError('bad_data', parseErrorMessage(text, error));
      throw error;
    }
    if (expr.kind !== 'vector' || expr.offsetMs !== 0 || expr.at !== undefined)
      throw new PromApiError(
        'bad_data',
        `invalid parameter "match[]": ${JSON.stringify(text)} is not a series selector such as up{job="api"}`,
      );
    return [...expr.matchers];
  });
}

/** At most `limit` items (0: all), with Prometheus's warning when some were left out. */
function limited(items: readonly unknown[], limit: number, warnings: Set<string>): Reply {
  const kept = limit > 0 && items.length > limit ? items.slice(0, limit) : items;
  const all = [...warnings];
  if (kept.length < items.length) all.push('results truncated due to limit');
  return { data: { value: kept }, warnings: all };
}
