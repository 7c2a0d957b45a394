/**
 * The function table against Prometheus 3's list of functions (promql/parser/functions.go at 3.14): every one is
 * evaluated but the two listed as not supported, and each entry's signature is Prometheus's.
 */
import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from './function-table.js';

/** Prometheus 3.14's functions, experimental ones included. */
const PROMETHEUS_FUNCTIONS = [
  'abs',
  'absent',
  'absent_over_time',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atanh',
  'avg_over_time',
  'ceil',
  'changes',
  'clamp',
  'clamp_max',
  'clamp_min',
  'cos',
  'cosh',
  'count_over_time',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'days_in_month',
  'deg',
  'delta',
  'deriv',
  'double_exponential_smoothing',
  'end',
  'exp',
  'first_over_time',
  'floor',
  'histogram_avg',
  'histogram_count',
  'histogram_fraction',
  'histogram_quantile',
  'histogram_quantiles',
  'histogram_stddev',
  'histogram_stdvar',
  'histogram_sum',
  'hour',
  'idelta',
  'increase',
  'info',
  'irate',
  'label_join',
  'label_replace',
  'last_over_time',
  'ln',
  'log10',
  'log2',
  'mad_over_time',
  'max_of',
  'max_over_time',
  'min_of',
  'min_over_time',
  'minute',
  'month',
  'pi',
  'predict_linear',
  'present_over_time',
  'quantile_over_time',
  'rad',
  'range',
  'rate',
  'resets',
  'round',
  'scalar',
  'sgn',
  'sin',
  'sinh',
  'sort',
  'sort_by_label',
  'sort_by_label_desc',
  'sort_desc',
  'sqrt',
  'start',
  'start_timestamp',
  'stddev_over_time',
  'stdvar_over_time',
  'step',
  'sum_over_time',
  'tan',
  'tanh',
  'time',
  'timestamp',
  'ts_of_first_over_time',
  'ts_of_last_over_time',
  'ts_of_max_over_time',
  'ts_of_min_over_time',
  'vector',
  'year',
];

/** Not evaluated, with why: both are experimental and need data the engine does not have. */
const NOT_SUPPORTED: Readonly<Record<string, string>> = {
  info: 'joins info metrics (target_info) by identifying labels: experimental, not part of this engine yet',
  start_timestamp: 'needs the samples’ start timestamps, which KairosDB and Heroic do not store',
};

describe('the function table', () => {
  it('holds every Prometheus function but those listed as not supported', () => {
    const expected = PROMETHEUS_FUNCTIONS.filter((name) => NOT_SUPPORTED[name] === undefined).sort();
    expect([...FUNCTIONS.keys()].sort()).toEqual(expected);
  });

  it('types arguments as Prometheus does', () => {
    const signature = (name: string) => {
      const f = FUNCTIONS.get(name)!;
      return [f.argTypes.join(','), f.variadic ?? 0, f.returnType, f.experimental === true];
    };
    expect(signature('rate')).toEqual(['matrix', 0, 'vector', false]);
    expect(signature('quantile_over_time')).toEqual(['scalar,matrix', 0, 'vector', false]);
    expect(signature('round')).toEqual(['vector,scalar', 1, 'vector', false]);
    expect(signature('label_join')).toEqual(['vector,string,string,string', -1, 'vector', false]);
    expect(signature('hour')).toEqual(['vector', 1, 'vector', false]);
    expect(signature('histogram_quantile')).toEqual(['scalar,vector', 0, 'vector', false]);
    expect(signature('double_exponential_smoothing')).toEqual(['matrix,scalar,scalar', 0, 'vector', true]);
    expect(signature('time')).toEqual(['', 0, 'scalar', false]);
    expect(signature('scalar')).toEqual(['vector', 0, 'scalar', false]);
  });

  it('keeps the metric name only for last_over_time and first_over_time', () => {
    const keeping = [...FUNCTIONS.values()]
      .filter((f) => f.kind === 'range' && f.keepsName === true)
      .map((f) => f.name);
    expect(keeping.sort()).toEqual(['first_over_time', 'last_over_time']);
  });
});
