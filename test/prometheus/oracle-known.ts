/**
 * What the oracle test expects: the queries over KairosDB names it sends besides the compliance list, and the cases
 * whose answers still differ from Prometheus's, each with its reason. A case is `range <query>` or `instant <query>`.
 */

/** Compliance-list cases that differ from Prometheus, by reason. */
export const KNOWN: Readonly<Record<string, string>> = {};

/** Queries over Kairograph's demo series: names with dots, quoted in PromQL, and their tags as labels. */
export const EXTRA_QUERIES: readonly string[] = [
  '{"system.cpu.usage"}',
  '{"system.cpu.usage", dc="eu-west"}',
  '{__name__="system.memory.used", host=~"web-0[12]"}',
  'avg by (dc) ({"system.cpu.usage"})',
  'max without (host) ({"system.memory.used"}) / 2^30',
  'rate({"http.requests"}[1m])',
  'sum by ("dc") (increase({"http.requests"}[5m]))',
  'avg_over_time({"http.request.latency"}[5m])',
  'quantile_over_time(0.9, {"http.request.latency"}[10m])',
  'topk(2, {"system.cpu.usage"})',
  '{"system.cpu.usage"} > bool 50',
  '{"system.memory.used"} / on (host) group_left {"system.cpu.usage"}',
  'label_replace({"system.cpu.usage"}, "site", "$1", "dc", "(.*)-.*")',
  'count_values("value", round({"system.cpu.usage"} / 10))',
  'deriv({"system.memory.used"}[15m])',
  'max_over_time(rate({"http.requests"}[1m])[10m:30s])',
];

/** EXTRA_QUERIES cases that differ from Prometheus, by reason. */
export const KNOWN_EXTRA: Readonly<Record<string, string>> = {};
