/**
 * What resolvers hand to the GraphQL types (codegen `mappers`): internal shapes, turned into fields lazily.
 */
import type { LiveChange, LiveUpdate } from '../cache/live-queries.js';
import type { GroupByResult } from '../engine/execute.js';
import type { PointKind, PointList, PointValue } from '../engine/point-list.js';
import type { Source } from '../sources/source.js';

export interface SeriesModel {
  readonly name: string;
  readonly metric: string;
  /** Tag name → its values in the series (one value for a stored series), sorted. */
  readonly tags: Readonly<Record<string, readonly string[]>>;
  /** KairosDB's group_by results of the series' group; empty for a stored series. */
  readonly groupBy: readonly GroupByResult[];
  readonly sampleSize: number;
  /** Built into the answer's point objects or columns only when a query selects them (point-answers.ts). */
  readonly points: PointList;
}

/** One point of a `rows` row. */
export interface PointModel {
  readonly t: number;
  readonly kind: PointKind;
  readonly v: PointValue;
}

/** One point with its series, for the flat `rows` shape. */
export interface RowModel {
  readonly series: SeriesModel;
  readonly point: PointModel;
}

/** A `MetadataService`: the service and the source whose service_index holds it (its name already checked). */
export interface MetadataServiceModel {
  readonly service: string;
  readonly source: Source;
}

/** One message of liveSeries: an update of the shared computation, and the source it reads. */
export type LiveUpdateModel = LiveUpdate<SeriesModel> & { readonly source: string };

export type LiveChangeModel = LiveChange<SeriesModel>;
