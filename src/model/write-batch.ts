/** Points to write, as every front end's write path hands them to a source once the whole batch is validated. */
import type { Tags } from './series.js';

/** The API types a point can be written as (KairosDB's ingest `type`). */
export type ValueType = 'long' | 'double' | 'string';

/** One series of a write batch, already validated (sources/write-validation.ts). */
export interface SeriesWrite {
  readonly metric: string;
  readonly tags: Tags;
  readonly type: ValueType;
  /** Seconds; 0 means no expiry. */
  readonly ttlSeconds: number;
  readonly timestamps: readonly number[];
  /** `long`: number or bigint (integral); `double`: number; `string`: string. Same length as `timestamps`. */
  readonly values: readonly (number | bigint | string)[];
}

export interface WriteBatch {
  readonly series: readonly SeriesWrite[];
}
