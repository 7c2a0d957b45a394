/**
 * Parameters of aggregators and group-bys in wire form (KairosDB's snake_case JSON, as Grafana sends it: numbers
 * or numeric strings, units in any case), read once into typed values with errors that name the field path.
 */
import { dict } from '../lib/dict.js';
import { EPOCH_MS_RULE, isEpochMs } from '../lib/epoch-ms.js';
import { InputError } from '../model/errors.js';
import type { FieldNames } from '../model/query.js';
import type { Zone } from 'luxon';
import { parseTimeUnit, resolveZone, TIME_UNITS, type Duration, type TimeUnit } from '../model/time-units.js';

type ParamType =
  | 'boolean'
  | 'integer'
  | 'number'
  | 'number or string'
  | 'string'
  | 'enum'
  | 'duration'
  | 'unit'
  | 'time zone'
  | 'epoch ms'
  | 'string map'
  | 'string list'
  | 'number list'
  | 'thresholds';

/** One parameter as the wire names it; the tables of aggregators and group-bys list these. */
export interface ParamSpec {
  readonly name: string;
  readonly type: ParamType;
  readonly required?: boolean;
  /** The wire value used when the parameter is absent. */
  readonly default?: unknown;
  /** The allowed values of an enum, lower-case; matched case-insensitively. */
  readonly options?: readonly string[];
}

/**
 * Reads the parameters of one aggregator or group-by. Construction rejects names outside `specs`, as KairosDB
 * rejects properties that have no setter.
 */
export class ParamReader {
  constructor(
    private readonly raw: Readonly<Record<string, unknown>>,
    /** How the caller named the owner and its parameters (`aggregators[2]`, `align_sampling`). */
    readonly fields: FieldNames,
    readonly owner: string,
    private readonly specs: readonly ParamSpec[],
  ) {
    for (const key of Object.keys(raw)) {
      if (!specs.some((s) => s.name === key)) {
        const takes = specs.length === 0 ? 'it takes none' : `it takes ${specs.map((s) => s.name).join(', ')}`;
        throw new InputError(fields.param(key), raw[key], `is not a parameter of ${owner} (${takes})`);
      }
    }
  }

  /** The parameter `name` (or its entry `key`, or its item at `key`) as the caller named it, for errors. */
  field(name: string, key?: string | number): string {
    return this.fields.param(name, key);
  }

  has(name: string): boolean {
    const value = this.raw[this.spec(name).name];
    return value !== undefined && value !== null;
  }

  /** Of `names`, the one given last in the wire object: KairosDB calls setters in JSON order, so the last wins. */
  lastGiven(names: readonly string[]): string | undefined {
    let last: string | undefined;
    for (const key of Object.keys(this.raw)) if (names.includes(key) && this.has(key)) last = key;
    return last;
  }

  boolean(name: string): boolean {
    const value = this.value(name);
    if (typeof value === 'boolean') return value;
    // Gson reads a JSON string into a boolean field too.
    if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
    throw new InputError(this.field(name), value, 'must be true or false');
  }

  number(name: string): number {
    return readNumber(this.value(name), this.field(name));
  }

  /** An integer in [min, max]. */
  integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
    return readInteger(this.value(name), this.field(name), min, max);
  }

  string(name: string): string {
    const value = this.value(name);
    if (typeof value !== 'string') throw new InputError(this.field(name), value, 'must be a string');
    return value;
  }

  /** One of the spec's options, matched case-insensitively; returns the lower-case option. */
  option<T extends string>(name: string): T {
    const value = this.value(name);
    const options = this.spec(name).options ?? [];
    if (typeof value === 'string' && options.includes(value.toLowerCase())) return value.toLowerCase() as T;
    throw new InputError(this.field(name), value, `must be one of ${options.join(', ')}`);
  }

  /** Names to non-empty strings, each entry's errors naming the entry as the caller wrote it. */
  stringMap(name: string): Record<string, string> {
    return readStringMap(this.value(name), this.field(name), (key) => this.field(name, key));
  }

  /** `{value, unit}`: a whole number ≥ 1 of a time unit. */
  duration(name: string): Duration {
    return readDuration(this.value(name), this.field(name));
  }

  unit(name: string): TimeUnit {
    return readUnit(this.value(name), this.field(name));
  }

  zone(name: string): Zone {
    return readZone(this.value(name), this.field(name));
  }

  /** Epoch milliseconds as a whole number (or numeric string), under the one time rule (src/lib/epoch-ms.ts). */
  epochMs(name: string): number {
    const value = this.value(name);
    const ms = typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value;
    if (!isEpochMs(ms)) throw new InputError(this.field(name), value, EPOCH_MS_RULE);
    return ms;
  }

  /** The raw value, for parameters whose shape the owner checks itself. */
  value(name: string): unknown {
    const spec = this.spec(name);
    const value = this.raw[spec.name];
    if (value !== undefined && value !== null) return value;
    if (spec.required) throw new InputError(this.field(name), value, 'is required');
    return spec.default;
  }

  private spec(name: string): ParamSpec {
    const spec = this.specs.find((s) => s.name === name);
    if (spec === undefined) throw new Error(`${this.owner} reads ${name}, which its parameter table does not list`);
    return spec;
  }
}

export function readNumber(value: unknown, field: string): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number))
    throw new InputError(field, value, 'must be a finite number');
  return number;
}

export function readInteger(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const number = typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new InputError(field, value, `must be a whole number ${range}`);
  }
  return number;
}

function readUnit(value: unknown, field: string): TimeUnit {
  const unit = typeof value === 'string' ? parseTimeUnit(value) : undefined;
  if (unit === undefined)
    throw new InputError(field, value, `must be one of ${TIME_UNITS.map((u) => u.toLowerCase()).join(', ')}`);
  return unit;
}

export function readDuration(value: unknown, field: string): Duration {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InputError(field, value, 'must be an object {value, unit}');
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (key !== 'value' && key !== 'unit')
      throw new InputError(`${field}.${key}`, object[key], 'is not a field of {value, unit}');
  }
  // A range of 0 units has no end; KairosDB accepts it and then divides by zero.
  return {
    value: readInteger(object.value, `${field}.value`, 1, 2_147_483_647),
    unit: readUnit(object.unit, `${field}.unit`),
  };
}

export function readZone(value: unknown, field: string): Zone {
  const zone = typeof value === 'string' ? resolveZone(value) : undefined;
  if (zone === undefined)
    throw new InputError(field, value, 'must be an IANA time zone such as Europe/Berlin, or an offset such as +05:30');
  return zone;
}

/** An object of non-empty string names to non-empty string values; `entry` names an entry's field. */
function readStringMap(value: unknown, field: string, entry: (name: string) => string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InputError(field, value, 'must be an object of names to strings');
  const out = dict<string>();
  for (const [name, v] of Object.entries(value)) {
    if (name === '') throw new InputError(field, value, 'must not have an empty name');
    if (typeof v !== 'string' || v === '') throw new InputError(entry(name), v, 'must be a non-empty string');
    out[name] = v;
  }
  return out;
}
