/**
 * What the oracle through the HTTP API (promql-oracle-http.test.ts) expects: the cases whose answers differ from
 * Prometheus's, each with its reason. A case is `range <query>`, `edges <query>`, `instant <query>` or
 * `annotations <query>`.
 *
 * The engine answers behind the API, so the engine's own known differences (oracle-known.ts) are here too, in the
 * modes of this test (the engine's `windows` are near the `edges` here); beside them, what comes of the store and of
 * how series are found.
 */
import { KNOWN, KNOWN_EXTRA, KNOWN_PROBE } from './oracle-known.js';

/**
 * KairosDB has no staleness marker: Java's writeDouble (and so the store) writes every NaN as one NaN, and nothing
 * but a Prometheus scrape writes markers anyway. A series that stops is seen for the lookback (5 minutes) after its
 * last point, as Prometheus sees a series written without markers, where the oracle's scrape wrote a marker that ends
 * it at once. Only `demo_intermittent_metric` comes and goes; range functions (`*_over_time` over a selector) do not
 * look back and agree.
 */
const NO_STALENESS = 'KairosDB keeps no staleness markers: a series that stops is seen for the lookback after it';

/**
 * Series are found by metric (docs/prometheus.md, "Selectors and how they are read"): a selector of labels alone
 * would read every metric of the source, so it is refused with 400 bad_data, where Prometheus looks up its index.
 */
const NO_METRIC_NAME = 'a selector must name its metric: Kairograph finds series by metric, Prometheus by any label';

const MODES = ['range', 'edges', 'instant'] as const;

function inModes(query: string, reason: string, modes: readonly string[] = MODES): [string, string][] {
  return modes.map((mode) => [`${mode} ${query}`, reason]);
}

/** The engine's known differences, in this test's modes. */
function engineKnown(known: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(known).map(([key, reason]) => [key.replace(/^windows /, 'edges '), reason]);
}

/** Compliance-list cases that differ from Prometheus over the HTTP API, by reason. */
export const KNOWN_HTTP: Readonly<Record<string, string>> = Object.fromEntries([
  ...engineKnown(KNOWN),
  ...inModes('demo_intermittent_metric', NO_STALENESS),
  ...inModes('{type="free", instance!="demo.promlabs.com:10000"}', NO_METRIC_NAME),
]);

/** EXTRA_QUERIES cases that differ from Prometheus over the HTTP API, by reason. */
export const KNOWN_HTTP_EXTRA: Readonly<Record<string, string>> = Object.fromEntries(engineKnown(KNOWN_EXTRA));

/** PROBE_QUERIES cases that differ from Prometheus over the HTTP API, by reason. */
export const KNOWN_HTTP_PROBE: Readonly<Record<string, string>> = Object.fromEntries([
  ...engineKnown(KNOWN_PROBE),
  ...inModes('timestamp(demo_intermittent_metric)', NO_STALENESS),
  ...inModes('count(demo_intermittent_metric)', NO_STALENESS),
  ...inModes('count_over_time(demo_intermittent_metric[4m:7s])', `${NO_STALENESS} (a subquery's steps look back)`),
  // At the instant queries' times the instance is present, or gone for longer than the lookback.
  ...inModes('absent(demo_intermittent_metric{instance="demo.promlabs.com:10000", job="demo"})', NO_STALENESS, [
    'range',
    'edges',
  ]),
]);
