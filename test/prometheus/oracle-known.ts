/**
 * What the oracle test expects: the queries over KairosDB names it sends besides the compliance list, and the cases
 * whose answers still differ from Prometheus's, each with its reason. A case is `range <query>` or `instant <query>`.
 */

/**
 * The engine removes `__name__` late, at the end of the query, as Prometheus does with its
 * `promql-delayed-name-removal` feature on (its own test scripts run with it). A default Prometheus server runs without
 * it: a function such as `rate` or `abs` drops the name at once, so a later step that reads `__name__` finds it gone.
 * The oracle server runs Prometheus's defaults; promql-oracle.test.ts checks that with
 * `--enable-feature=promql-delayed-name-removal` every case listed with this reason agrees.
 */
export const DELAYED_NAME_REMOVAL =
  'the engine removes __name__ late (promql-delayed-name-removal); a default server at once';

/**
 * The same, seen in a warning's text: a default server has dropped the name before histogram_quantile looks at the
 * buckets, so its warning names no metric (and warnings that differed only by it become one).
 */
const NAME_IN_WARNING = `${DELAYED_NAME_REMOVAL}: the bad-bucket warning names the metric`;

/** Compliance-list cases that differ from Prometheus, by reason. */
export const KNOWN: Readonly<Record<string, string>> = {
  'annotations histogram_quantile(0.9, demo_memory_usage_bytes)': NAME_IN_WARNING,
  'annotations histogram_quantile(0.9, {__name__=~"demo_api_request_duration_seconds_.+"})': NAME_IN_WARNING,
};

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
  '{"jvm.memory.used", "host.name"=~"web-0[12]"}',
  'sum by ("host.name") ({"jvm.memory.used"})',
  'avg without ("host.name") ({"jvm.memory.used"})',
  'count by ("service.version") ({"jvm.memory.used"} > 3e8)',
  'label_replace({"jvm.memory.used"}, "dst.label", "$1", "host.name", "web-(.*)")',
  'label_join({"jvm.memory.used"}, "id", "/", "host.name", "service.version")',
  '{"jvm.memory.used"} / on ("host.name") group_left ("service.version") {"jvm.memory.used"}',
  'topk by ("service.version") (1, {"jvm.memory.used"})',
];

/** EXTRA_QUERIES cases that differ from Prometheus, by reason. */
export const KNOWN_EXTRA: Readonly<Record<string, string>> = {};

/**
 * Queries over the demo service's series beyond the compliance list: functions, modifiers and matchings it leaves out
 * (classic histograms aggregated by `le`, the `*_over_time` family on a series that comes and goes, `@`, subqueries
 * with odd steps, set operators, `absent` label copying, trigonometry, `scalar`).
 */
export const PROBE_QUERIES: readonly string[] = [
  'histogram_quantile(0.9, sum by (le) (rate(demo_api_request_duration_seconds_bucket[5m])))',
  'histogram_quantile(0.5, sum by (le, path) (rate(demo_api_request_duration_seconds_bucket[1m])))',
  'histogram_quantile(0.99, rate(demo_api_request_duration_seconds_bucket[1m] offset 10m))',
  'histogram_fraction(0, 0.1, sum by (le) (rate(demo_api_request_duration_seconds_bucket[5m])))',
  'rate(demo_api_request_duration_seconds_sum[5m]) / rate(demo_api_request_duration_seconds_count[5m])',
  // Buckets made non-monotonic (the 5 ms bucket relabelled as 300 ms), which histogram_quantile fixes with an info.
  'histogram_quantile(0.5, label_replace(demo_api_request_duration_seconds_bucket, "le", "0.3", "le", "0.005"))',
  'predict_linear(demo_disk_usage_bytes[1h], 3600)',
  'deriv(demo_memory_usage_bytes[2m])',
  'absent_over_time(demo_intermittent_metric[1m])',
  'present_over_time(demo_intermittent_metric[30s])',
  'count_over_time(demo_intermittent_metric[2m])',
  'last_over_time(demo_intermittent_metric[1m])',
  'changes(demo_intermittent_metric[5m])',
  'timestamp(demo_intermittent_metric)',
  'count(demo_intermittent_metric)',
  'absent(demo_intermittent_metric{instance="demo.promlabs.com:10000", job="demo"})',
  'absent_over_time(nonexistent{job="x", instance=~"a.*"}[5m])',
  'rate(demo_cpu_usage_seconds_total[5m] offset -2m)',
  'demo_cpu_usage_seconds_total @ start()',
  'rate(demo_cpu_usage_seconds_total[1m] @ end())',
  'sum_over_time(demo_num_cpus[10m:1m])',
  'max_over_time(rate(demo_cpu_usage_seconds_total[1m])[10m:])',
  'max_over_time(demo_cpu_usage_seconds_total[1m:7s])',
  'quantile_over_time(0.5, rate(demo_cpu_usage_seconds_total[1m])[5m:10s])',
  'stddev_over_time(demo_memory_usage_bytes[10m])',
  'stdvar_over_time(demo_memory_usage_bytes[10m])',
  'quantile(0.3, rate(demo_cpu_usage_seconds_total[2m]))',
  'count_values("cpus", demo_num_cpus)',
  'group by (mode) (demo_cpu_usage_seconds_total)',
  'topk by (mode) (1, rate(demo_cpu_usage_seconds_total[1m]))',
  'bottomk(2, demo_memory_usage_bytes) by (type)',
  'demo_memory_usage_bytes and on (instance) demo_num_cpus > 5',
  'demo_memory_usage_bytes{type="free"} or demo_memory_usage_bytes{type="used"} * 2',
  'demo_memory_usage_bytes unless on (instance) demo_num_cpus < 5',
  'demo_memory_usage_bytes / ignoring (type) group_left sum without (type) (demo_memory_usage_bytes)',
  'demo_num_cpus atan2 2',
  'sin(demo_num_cpus) + cos(demo_num_cpus) - tanh(demo_num_cpus / 10)',
  'sgn(deriv(demo_disk_usage_bytes[5m]))',
  'scalar(sum(demo_num_cpus))',
  'vector(scalar(demo_num_cpus))',
  'day_of_year(demo_batch_last_success_timestamp_seconds)',
  'time() - demo_batch_last_success_timestamp_seconds',
  'increase(demo_items_shipped_total[90s])',
  'irate(demo_cpu_usage_seconds_total[1m])',
  'resets(demo_cpu_usage_seconds_total[1h])',
  'clamp(demo_num_cpus, 5, 6)',
  'round(demo_memory_usage_bytes, 1e6)',
  '-demo_num_cpus ^ 2',
  '2 ^ 3 ^ 2',
  'demo_num_cpus offset 1h30m',
  'sum(demo_memory_usage_bytes) by (instance)',
  'sort_desc(sum by (instance) (demo_memory_usage_bytes))',
  'avg(demo_memory_usage_bytes) / on () group_left sum(demo_memory_usage_bytes)',
  'demo_memory_usage_bytes % 1e6 > bool 5e5',
  'label_replace(rate(demo_cpu_usage_seconds_total[1m]), "__name__", "cpu_$1", "mode", "(.*)")',
  // Subquery steps (aligned to multiples of the step, not to the query), odd ranges and offsets.
  'max_over_time(demo_num_cpus[5m:17s])',
  'rate(demo_cpu_usage_seconds_total[5m:13s])',
  'sum_over_time(demo_memory_usage_bytes[3m:1m] @ start())',
  'count_over_time(demo_intermittent_metric[4m:7s])',
  'last_over_time(demo_num_cpus[1m:] offset -30s)',
  'rate(demo_cpu_usage_seconds_total[17s])',
  'rate(demo_cpu_usage_seconds_total[4999ms])',
  'increase(demo_cpu_usage_seconds_total[1m30s] offset 45s)',
  'timestamp(rate(demo_cpu_usage_seconds_total[1m]))',
  'timestamp(vector(1))',
  'minute(vector(1794318480)) + days_in_month(vector(1794318480)) + day_of_week()',
  'absent(sum(nonexistent))',
  'absent(demo_num_cpus{job="x"} == 1)',
  'sort(rate(demo_cpu_usage_seconds_total[1m]))',
  // NaN, infinities, zero and negatives in the data.
  'probe_special_values',
  'max_over_time(probe_special_values[1m])',
  'min_over_time(probe_special_values[1m])',
  'avg_over_time(probe_special_values[1m])',
  'sum_over_time(probe_special_values[2m])',
  'quantile_over_time(0.5, probe_special_values[2m])',
  'stddev_over_time(probe_special_values[1m])',
  'last_over_time(probe_special_values[1m])',
  'changes(probe_special_values[2m])',
  'resets(probe_special_values[2m])',
  'rate(probe_special_values[1m])',
  'deriv(probe_special_values[1m])',
  'idelta(probe_special_values[1m])',
  'max(probe_special_values)',
  'min(probe_special_values)',
  'avg(probe_special_values)',
  'sum(probe_special_values)',
  'stddev(probe_special_values)',
  'quantile(0.5, probe_special_values)',
  'topk(1, probe_special_values)',
  'bottomk(1, probe_special_values)',
  'count_values("v", probe_special_values)',
  'probe_special_values > 0',
  'probe_special_values == bool probe_special_values',
  'clamp(probe_special_values, -1, 1)',
  'sgn(probe_special_values) * round(probe_special_values)',
  'sort_desc(probe_special_values)',
  'probe_special_values % 2',
  'probe_special_values ^ 0.5',
  'ln(probe_special_values)',
  'group(probe_special_values)',
  'delta(probe_special_values[1m])',
  'increase(probe_special_values[1m])',
  'irate(probe_special_values[1m])',
  'predict_linear(probe_special_values[1m], 60)',
  'probe_special_values / 0',
  '0 / probe_special_values',
  'probe_special_values % 0',
  'probe_special_values atan2 probe_special_values',
  'probe_special_values ^ -1',
  'acos(probe_special_values) + asinh(probe_special_values) + deg(probe_special_values)',
  'ceil(probe_special_values) - floor(probe_special_values)',
  'clamp_min(probe_special_values, 1) + clamp_max(probe_special_values, 1)',
  'scalar(probe_special_values)',
  'vector(NaN) + vector(Inf)',
  'stdvar(probe_special_values) by (job)',
  'count(probe_special_values > -Inf)',
  'timestamp(probe_special_values @ end())',
  'sum by (job) (probe_special_values) / on (job) group_left count by (job) (probe_special_values)',
  // Where a function has dropped the metric name and a later step reads it.
  'label_join(rate(demo_cpu_usage_seconds_total[1m]), "foo", "-", "__name__", "mode")',
  'label_replace(abs(demo_num_cpus), "n", "$1", "__name__", "(.*)")',
  'count by (__name__) (abs({__name__=~"demo_memory_usage_bytes|demo_num_cpus"}))',
  'sum by (__name__) (rate(demo_cpu_usage_seconds_total[5m]))',
];

/**
 * Prometheus 3.16's forced-monotonicity info of histogram_quantile gives the buckets fixed, the largest difference, a
 * sample count and the time range; the engine's names the metric only (its README lists it). The count 3.16 prints is
 * no count (a large negative number here), so the text could not be matched exactly anyway.
 */
const MONOTONICITY_INFO = "the engine's forced-monotonicity info lacks 3.16's buckets, difference, count and times";

/** PROBE_QUERIES cases that differ from Prometheus, by reason. */
export const KNOWN_PROBE: Readonly<Record<string, string>> = Object.fromEntries([
  [
    'annotations histogram_quantile(0.5, label_replace(demo_api_request_duration_seconds_bucket, "le", "0.3", "le", "0.005"))',
    MONOTONICITY_INFO,
  ],
  ...[
    'label_join(rate(demo_cpu_usage_seconds_total[1m]), "foo", "-", "__name__", "mode")',
    'label_replace(abs(demo_num_cpus), "n", "$1", "__name__", "(.*)")',
    // The engine keeps both names through `count by (__name__)` and then finds two series with the same labels.
    'count by (__name__) (abs({__name__=~"demo_memory_usage_bytes|demo_num_cpus"}))',
  ].flatMap((query) => ['range', 'windows', 'instant'].map((mode) => [`${mode} ${query}`, DELAYED_NAME_REMOVAL])),
]);
