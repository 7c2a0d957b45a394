/**
 * What resolvers hand to the GraphQL types (codegen `mappers`): internal shapes, turned into fields lazily.
 */
import type { PointKind, PointValue } from '../engine/point-list.js';

export interface SeriesModel {
  readonly metric: string;
  /** Tag name → its values in the series (one value for a stored series), sorted. */
  readonly tags: Readonly<Record<string, readonly string[]>>;
  readonly points: PointModel[];
}

export interface PointModel {
  readonly t: number;
  readonly kind: PointKind;
  readonly v: PointValue;
}
