// The explorer page: builds a `series` query from the form, or takes a PromQL expression (GraphQL's `promql` field),
// charts its answer, shows the request's statistics, links the same query into GraphiQL, and with "Live" follows it
// through the `liveSeries` or `livePromql` subscription (Server-Sent Events).
import { drawChart } from './chart.js';

const $ = (id) => document.getElementById(id);
const form = $('query');
const status = $('status');
let primary = '';
/** The chart's series by key: { label, times, values }. */
let shown = new Map();
let liveAbort;
/** What the chart shows: the builder's query ('builder') or the PromQL box's ('promql'). */
let mode = 'builder';

async function graphql(query, variables = {}) {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body;
}

function options(select, values, selected) {
  select.replaceChildren(...values.map(([value, text]) => new Option(text, value, false, value === selected)));
}

async function loadSources() {
  const { data } = await graphql('{ sources { name primary } }');
  primary = data.sources.find((s) => s.primary).name;
  options(
    $('source'),
    data.sources.map((s) => [s.name, s.name]),
    primary,
  );
  await loadMetrics();
}

async function loadMetrics() {
  const { data } = await graphql('query ($source: String) { metricNames(source: $source) }', {
    source: $('source').value,
  });
  const names = data.metricNames;
  options(
    $('metric'),
    names.map((n) => [n, n]),
    names.includes('system.cpu.usage') ? 'system.cpu.usage' : names[0],
  );
  await loadTags();
}

async function loadTags() {
  const metric = $('metric').value;
  const box = $('tags');
  box.replaceChildren();
  options($('groupBy'), [['', '(none)']], '');
  if (!metric) return;
  const variables = { metric, source: $('source').value, from: $('range').value };
  const { data } = await graphql(
    'query ($metric: String!, $source: String, $from: Time) { tagNames(metric: $metric, source: $source, from: $from) }',
    variables,
  );
  for (const tag of data.tagNames.slice(0, 6)) {
    const values = await graphql(
      'query ($metric: String!, $tag: String!, $source: String, $from: Time) { tagValues(metric: $metric, tag: $tag, source: $source, from: $from) }',
      { ...variables, tag },
    );
    const select = document.createElement('select');
    select.dataset.tag = tag;
    options(select, [['', 'any'], ...values.data.tagValues.map((v) => [v, v])], '');
    const label = document.createElement('label');
    label.append(`${tag} `, select);
    box.append(label);
  }
  options(
    $('groupBy'),
    [['', '(none)'], ...data.tagNames.map((t) => [t, t])],
    data.tagNames.includes('host') ? 'host' : '',
  );
}

/** The arguments of the query the form describes, as GraphQL text (so GraphiQL opens exactly this query). */
function argumentsText() {
  const parts = [`metric: ${JSON.stringify($('metric').value)}`, `from: ${JSON.stringify($('range').value)}`];
  const where = [...$('tags').querySelectorAll('select')]
    .filter((s) => s.value !== '')
    .map((s) => `{ tag: ${JSON.stringify(s.dataset.tag)}, eq: ${JSON.stringify(s.value)} }`);
  if (where.length > 0) parts.push(`where: [${where.join(', ')}]`);
  if ($('groupBy').value) parts.push(`groupBy: { tags: [${JSON.stringify($('groupBy').value)}] }`);
  const aggregator = $('aggregator').value;
  if (aggregator) {
    const [value, unit] = $('sampling').value.split(' ');
    parts.push(
      `aggregators: [{ ${aggregator}: { sampling: { value: ${value}, unit: ${unit} }, alignStartTime: true } }]`,
    );
  }
  if ($('source').value !== primary) parts.push(`source: ${JSON.stringify($('source').value)}`);
  return parts.join(', ');
}

// Columns are uPlot's own layout, and a tenth of the server's work of point objects (schema.graphql, Series.columns).
const SERIES_FIELDS = 'name tags { name values } columns { epochMs value }';
const queryText = () => `{\n  series(${argumentsText()}) {\n    ${SERIES_FIELDS}\n  }\n}\n`;
const subscriptionText = () =>
  `subscription {\n  liveSeries(${argumentsText()}) {\n    kind\n    changes { key from series { ${SERIES_FIELDS} } }\n    removed\n  }\n}\n`;

/** A step that gives about 250 points over the range (`now-15m` → 5s), among steps people read easily. */
function stepOf(range) {
  const [, n, unit] = /^now-(\d+)([mhd])$/.exec(range);
  const seconds = Number(n) * { m: 60, h: 3600, d: 86400 }[unit];
  const steps = [1, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];
  return `${steps.find((s) => s >= seconds / 250) ?? 3600}s`;
}

function promqlArguments() {
  const range = $('range').value;
  const parts = [
    `expression: ${JSON.stringify($('expression').value)}`,
    `from: ${JSON.stringify(range)}`,
    `step: ${JSON.stringify(stepOf(range))}`,
  ];
  if ($('source').value !== primary) parts.push(`source: ${JSON.stringify($('source').value)}`);
  return parts.join(', ');
}

const PROMQL_FIELDS = 'name metric tags { name values } columns { epochMs value }';
const promqlText = () => `{\n  promql(${promqlArguments()}) {\n    ${PROMQL_FIELDS}\n  }\n}\n`;
const promqlSubscriptionText = () =>
  `subscription {\n  livePromql(${promqlArguments()}) {\n    kind\n    changes { key from series { ${PROMQL_FIELDS} } }\n    removed\n  }\n}\n`;

/** A PromQL series as Prometheus shows it: `metric{label="value", ...}`, or the expression for a scalar. */
function promqlLabel(series) {
  if (series.tags.length === 0) return series.name;
  const labels = series.tags.map((t) => `${t.name}=${JSON.stringify(t.values[0])}`).join(', ');
  return `${series.metric}{${labels}}`;
}

function labelOf(series) {
  if (mode === 'promql') return promqlLabel(series);
  const group = $('groupBy').value;
  const tag = series.tags.find((t) => t.name === group);
  return group && tag ? `${group}=${tag.values.join(',')}` : series.name;
}

function asShown(series) {
  return { label: labelOf(series), times: series.columns.epochMs, values: series.columns.value };
}

function redraw() {
  drawChart($('chart'), [...shown.values()]);
}

function showStatistics(statistics, live) {
  const q = statistics?.queries?.[0];
  const rows = [
    ['request', `${statistics?.requestId ?? ''}${live ? ' (live run)' : ''}`],
    ['time', `${statistics?.ms ?? '?'} ms`],
    ['series matched', q?.seriesMatched],
    ['partitions read', q?.partitionsRead],
    ['points read', q?.pointsRead],
    ['points returned', q?.pointsReturned],
    ['results cache', q ? `${q.cache.hits} hits, ${q.cache.misses} misses` : ''],
    ['store calls', statistics?.storeCalls?.total],
  ];
  $('statistics').replaceChildren(
    ...rows.map(([name, value]) => {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      const td = document.createElement('td');
      th.textContent = name;
      td.textContent = value ?? '';
      tr.append(th, td);
      return tr;
    }),
  );
}

/** Runs what the chart shows: the builder's query, or with `promql` the PromQL box's expression. */
async function run(shows = 'builder') {
  stopLive();
  mode = shows;
  const text = mode === 'promql' ? promqlText() : queryText();
  $('graphiql').href = `/graphql?query=${encodeURIComponent(text)}`;
  status.className = '';
  status.textContent = 'running…';
  try {
    const { data, extensions } = await graphql(text);
    const series = mode === 'promql' ? data.promql : data.series;
    shown = new Map(series.map((s, i) => [String(i), asShown(s)]));
    redraw();
    showStatistics(extensions?.statistics, false);
    // Prometheus's warnings (a counter that may not be one, series skipped) beside the answer.
    const notes = (extensions?.warnings ?? []).map((w) => w.message);
    status.textContent = [
      `${series.length} series, ${series.reduce((n, s) => n + s.columns.epochMs.length, 0)} points`,
      ...notes,
    ].join('; ');
  } catch (error) {
    status.className = 'error';
    status.textContent = error.message;
  }
  if ($('live').checked) startLive();
}

/** The chart again after a change of source or range, whichever query it shows. */
const rerun = () => run(mode);

function stopLive() {
  liveAbort?.abort();
  liveAbort = undefined;
}

/** Follows liveSeries over SSE (graphql-sse's distinct connections mode): a POST whose answer is an event stream. */
async function startLive() {
  stopLive();
  const abort = (liveAbort = new AbortController());
  try {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: mode === 'promql' ? promqlSubscriptionText() : subscriptionText() }),
      signal: abort.signal,
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const lines = block.split('\n');
        if (!lines.includes('event: next')) continue;
        applyEvent(
          JSON.parse(
            lines
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5))
              .join('\n'),
          ),
        );
      }
    }
  } catch (error) {
    if (abort.signal.aborted) return;
    status.className = 'error';
    status.textContent = `live: ${error.message}`;
  }
}

function applyEvent(event) {
  if (event.errors?.length) {
    status.className = 'error';
    status.textContent = `live: ${event.errors.map((e) => e.message).join('; ')}`;
    return;
  }
  const update = event.data.liveSeries ?? event.data.livePromql;
  if (update.kind === 'SNAPSHOT') shown = new Map();
  for (const change of update.changes) {
    const incoming = asShown(change.series);
    const before = shown.get(change.key);
    if (before && change.from !== null) {
      const from = Date.parse(change.from);
      const keep = before.times.findIndex((t) => t >= from);
      const n = keep < 0 ? before.times.length : keep;
      incoming.times = [...before.times.slice(0, n), ...incoming.times];
      incoming.values = [...before.values.slice(0, n), ...incoming.values];
    }
    shown.set(change.key, incoming);
  }
  for (const key of update.removed) shown.delete(key);
  redraw();
  showStatistics(event.extensions?.statistics, true);
  status.className = '';
  status.textContent = `live: ${update.kind.toLowerCase()} at ${new Date().toLocaleTimeString()}`;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void run();
});
$('promql').addEventListener('submit', (event) => {
  event.preventDefault();
  void run('promql');
});
$('source').addEventListener('change', () => void loadMetrics().then(rerun));
$('range').addEventListener('change', () => void rerun());
$('metric').addEventListener('change', () => void loadTags().then(() => run()));
for (const id of ['groupBy', 'aggregator', 'sampling']) $(id).addEventListener('change', () => void run());
$('tags').addEventListener('change', () => void run());
$('live').addEventListener('change', () => ($('live').checked ? startLive() : stopLive()));
addEventListener('resize', redraw);

loadSources().then(
  () => run(),
  (error) => {
    status.className = 'error';
    status.textContent = error.message;
  },
);
