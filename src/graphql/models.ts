/**
 * What resolvers hand to the GraphQL types (codegen `mappers`): internal shapes, turned into fields lazily.
 */
import type { LiveChange, LiveUpdate } from '../sharing/live-update.js';
import type { GroupByResult } from '../engine/execute.js';
import type { PointList } from '../engine/point-list.js';
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

/** The series of a `rows` row, whose fields are completed once per series (point-answers.ts `seriesRows`). */
export interface RowModel {
  readonly series: SeriesModel;
}

/** A `MetadataService`: the service and the source whose service_index holds it (its name already checked). */
export interface MetadataServiceModel {
  readonly service: string;
  readonly source: Source;
}

/** One message of liveSeries: an update of the shared computation, and the source it reads. */
export type LiveUpdateModel = LiveUpdate<SeriesModel> & { readonly source: string };

export type LiveChangeModel = LiveChange<SeriesModel>;
