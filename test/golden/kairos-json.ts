/**
 * The golden files' shapes: a KairosDB query body with one metric (translated into the query model by the REST
 * API's own parseKairosQuery), and the engine's answer in KairosDB's response shape with the point types spelled
 * out (JSON alone cannot tell 5 from 5.0).
 */
import type { QueryOutput } from '../../src/engine/execute.js';
import type { PointList } from '../../src/engine/point-list.js';

export interface KairosQuery {
  readonly start_absolute: number;
  readonly end_absolute?: number;
  readonly time_zone?: string;
  readonly metrics: readonly [KairosMetric];
}

export interface KairosMetric {
  readonly name: string;
  readonly tags?: Readonly<Record<string, string | readonly string[]>>;
  readonly aggregators?: readonly ({ readonly name: string } & Record<string, unknown>)[];
  readonly group_by?: readonly ({ readonly name: string } & Record<string, unknown>)[];
  readonly limit?: number;
  /** Case-insensitive, as KairosDB's Order.fromString. */
  readonly order?: string;
  readonly exclude_tags?: boolean;
  readonly alias?: string;
}

export interface KairosResult {
  readonly name: string;
  readonly alias?: string;
  readonly group_by: readonly unknown[];
  readonly tags: Readonly<Record<string, readonly string[]>>;
  readonly values: readonly (readonly [number, unknown])[];
  /** One letter per point: l long, d double, s string, c complex, n null. */
  readonly types: string;
}

export interface KairosAnswer {
  readonly sample_size: number;
  readonly results: readonly KairosResult[];
  readonly warnings?: readonly string[];
  readonly truncated?: unknown;
}

export function toKairosAnswer(output: QueryOutput): KairosAnswer {
  return {
    sample_size: output.sampleSize,
    results: output.groups.map((group) => ({
      name: group.name,
      ...(output.alias !== undefined ? { alias: output.alias } : {}),
      group_by: group.groupBy,
      tags: group.tags,
      values: values(group.points),
      types: group.points.kinds.map((kind) => TYPE_LETTER[kind]).join(''),
    })),
    ...(output.warnings.length > 0 ? { warnings: output.warnings } : {}),
    ...(output.truncated !== undefined ? { truncated: output.truncated } : {}),
  };
}

const TYPE_LETTER = { long: 'l', double: 'd', string: 's', complex: 'c', null: 'n' } as const;

/** Longs beyond ±2^53 are written as digit strings, which JSON numbers cannot carry exactly. */
function values(points: PointList): [number, unknown][] {
  return points.timestamps.map((t, i) => {
    const v = points.values[i];
    return [t, typeof v === 'bigint' ? v.toString() : v];
  });
}
