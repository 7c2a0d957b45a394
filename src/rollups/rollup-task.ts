/**
 * KairosDB's roll-up tasks (`RollupTask`, `Rollup`, `QueryParser.parseRollupTask`): the task JSON read, validated and
 * written back as KairosDB stores it, so a task either server wrote reads on the other. Each roll-up's `query` is a
 * KairosDB query body read by the REST API's own parser; a task's run is that query over one period, with a
 * `save_as` appended to each metric (src/rollups/run-period.ts).
 */
import { randomUUID } from 'node:crypto';
import { readDuration, readZone } from '../engine/params.js';
import { NOMINAL_UNIT_MS, type Duration } from '../model/time-units.js';
import { InputError } from '../model/errors.js';
import { checkMetricQuery } from '../kairos-json/check-query.js';
import { JsonSyntaxError, parseJson, type JsonValue } from '../kairos-json/json-text.js';
import { parseKairosQuery } from '../kairos-json/parse-query.js';
import type { FieldNames, MetricQuery } from '../model/query.js';
import type { KeyLimits } from '../model/key-limits.js';

/** KairosDB's `RangeAggregator` subclasses: a roll-up query needs one of them (`validateHasRangeAggregator`). */
const RANGE_AGGREGATORS: readonly string[] = [
  'avg',
  'count',
  'dev',
  'first',
  'gaps',
  'last',
  'least_squares',
  'max',
  'min',
  'percentile',
  'sum',
];

/** The shortest execution interval a task may have: a period per millisecond would be a query per millisecond. */
const MIN_INTERVAL_MS = 1000;

export interface RollupTask {
  /** The key it is stored under, and the `id` member of its JSON. */
  readonly id: string;
  readonly name: string;
  readonly executionInterval: Duration;
  readonly rollups: readonly Rollup[];
  /** The task as stored and answered: the JSON text it was given, compact, with its `id` first. */
  readonly json: string;
}

export interface Rollup {
  /** The metric its points are written to. */
  readonly saveAs: string;
  /** The roll-up's own `time_zone`, which KairosDB gives its range aggregators; absent for the query's. */
  readonly timeZone?: string;
  /**
   * One query per metric of the roll-up's query, `save_as` appended, its range a placeholder: a run replaces it with
   * the period it rolls up.
   */
  readonly queries: readonly MetricQuery[];
}

export interface ParseTaskOptions {
  /** The task's id when it is updated (PUT /rollups/{id}); a new task keeps an `id` it gives, or gets a new one. */
  readonly id?: string;
  readonly limits: KeyLimits;
  readonly nowMs: number;
  /** The shortest execution interval taken (ROLLUPS_MIN_INTERVAL_MS for tasks changed through the gateway); MIN_INTERVAL_MS by default. */
  readonly minIntervalMs?: number;
}

/**
 * Parses and validates task JSON as KairosDB does (name, execution_interval, each roll-up's save_as and query, a
 * range aggregator in each query's metrics), with errors that name the field and the value.
 */
export function parseRollupTask(text: string, options: ParseTaskOptions): RollupTask {
  let body: JsonValue;
  try {
    body = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { exactNumbers: false });
  } catch (error) {
    if (error instanceof JsonSyntaxError)
      throw new InputError(
        'task',
        text.length > 80 ? `${text.slice(0, 77)}...` : text,
        `is not valid JSON: ${error.message}`,
      );
    throw error;
  }
  if (!isObject(body)) throw new InputError('task', body, 'must be a JSON object {name, execution_interval, rollups}');
  const given = body.id;
  if (given !== undefined && given !== null && (typeof given !== 'string' || given === ''))
    throw new InputError('id', given, 'must be a non-empty string');
  const id = options.id ?? (typeof given === 'string' ? given : randomUUID());
  if (typeof body.name !== 'string' || body.name.trim() === '')
    throw new InputError('name', body.name, 'must be a non-empty string');
  if (body.execution_interval === undefined || body.execution_interval === null) {
    throw new InputError(
      'execution_interval',
      body.execution_interval,
      'is required: {value, unit}, how often the task runs',
    );
  }
  const executionInterval = readDuration(body.execution_interval, 'execution_interval');
  const minIntervalMs = options.minIntervalMs ?? MIN_INTERVAL_MS;
  if (executionInterval.value * NOMINAL_UNIT_MS[executionInterval.unit] < minIntervalMs) {
    const setting = options.minIntervalMs !== undefined ? ' (ROLLUPS_MIN_INTERVAL_MS)' : '';
    throw new InputError(
      'execution_interval',
      body.execution_interval,
      `must be at least ${minIntervalMs} milliseconds${setting}`,
    );
  }
  const list = body.rollups;
  // KairosDB keeps a task without roll-ups, which then runs and writes nothing: the silent kind of task this refuses.
  if (!Array.isArray(list) || list.length === 0)
    throw new InputError('rollups', list, 'must be a non-empty array of {save_as, query}');
  const rollups = list.map((rollup, i) => readRollup(rollup, `rollups[${i}]`, options));
  const { id: _dropped, ...rest } = body;
  return { id, name: body.name, executionInterval, rollups, json: JSON.stringify({ id, ...rest }) };
}

function readRollup(value: unknown, path: string, options: ParseTaskOptions): Rollup {
  if (!isObject(value)) throw new InputError(path, value, 'must be an object {save_as, query}');
  const saveAs = value.save_as;
  if (typeof saveAs !== 'string' || saveAs.trim() === '')
    throw new InputError(`${path}.save_as`, saveAs, 'must be a non-empty metric name');
  let timeZone: string | undefined;
  if (value.time_zone !== undefined && value.time_zone !== null) {
    readZone(value.time_zone, `${path}.time_zone`);
    timeZone = value.time_zone as string;
  }
  const queryPath = `${path}.query`;
  if (!isObject(value.query))
    throw new InputError(
      queryPath,
      value.query,
      'must be a KairosDB query object {start_relative or start_absolute, metrics}',
    );
  const queries = parseKairosQuery(value.query, options.nowMs, options.limits, queryPath);
  // The save_as the task appends is the roll-up's own `save_as`: its errors name that field.
  const saveAsField = `${path}.save_as`;
  const saveAsFields: FieldNames = { path: saveAsField, param: () => saveAsField };
  return {
    saveAs,
    ...(timeZone !== undefined ? { timeZone } : {}),
    queries: queries.map((parsed, i) => {
      const query = timeZone !== undefined ? { ...parsed, timeZone } : parsed;
      if (query.metric === saveAs)
        throw new InputError(
          `${path}.save_as`,
          saveAs,
          `must differ from the metric it rolls up (${queryPath}.metric[${i}].name)`,
        );
      const rangeAggregator = query.aggregators.some((aggregator) => RANGE_AGGREGATORS.includes(aggregator.name));
      if (!rangeAggregator) {
        throw new InputError(
          `${queryPath}.metric[${i}].aggregators`,
          query.aggregators.map((aggregator) => aggregator.name),
          `must include a range aggregator (one of ${RANGE_AGGREGATORS.join(', ')}): a roll-up writes one point per range`,
        );
      }
      // As KairosDB: the roll-up's save_as goes last, and keeps the tags the query's tag group-by pins.
      const withSave: MetricQuery = {
        ...query,
        aggregators: [...query.aggregators, { name: 'save_as', params: { metric_name: saveAs }, fields: saveAsFields }],
      };
      checkMetricQuery(withSave, options.nowMs, options.limits);
      return withSave;
    }),
  };
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
