/**
 * The seam's vocabulary: series, their partitions and slices, write batches and key limits, as every layer above the
 * sources speaks of them. The data model is KairosDB's (docs/architecture.md, decision 1), whatever the storage design
 * beneath: a series is a metric, a data type and a tag set; its points come as columnar slices of one partition. So
 * these are KairosDB's own definitions and codecs, implemented beside its format in src/store/ and re-exported here:
 * the planner, engine, cache and front ends take them from this module and never reach into src/store/ themselves
 * (test/architecture/import-graph.test.ts holds them to it).
 */
export type {
  ComplexSlice,
  HostState,
  NumberSlice,
  PingReport,
  Recreation,
  RowKey,
  ScanOptions,
  SeriesWrite,
  Claim,
  ServiceIndex,
  ServiceValue,
  SchemaRepairStatus,
  Slice,
  SliceKind,
  StoreLimits,
  StringSlice,
  Tags,
  ValueType,
  WriteBatch,
} from '../store/store.js';
/** A series' canonical tag string (KairosDB's order of series and groups) and the slice kind of a data type. */
export { encodeTagString, sliceKindOf } from '../store/format/index.js';
/** What a written series must be before any source sees it, held to the source's key limits. */
export { checkMetricPrefix } from '../store/key-limits.js';
/** The service_index partition the stores keep their tag index markers in (read-only through the metadata API). */
export { COVERAGE_SERVICE } from '../store/tag-index.js';
/** Reading scans ahead of their reader within a request's budget of points: the engine's read-ahead and split scans share it. */
export { QueuedScan, ReadAheadBudget } from '../store/queued-scan.js';
export {
  MAX_TTL_SECONDS,
  pointPath,
  validateMetricName,
  validateWrite,
  type PointInput,
  type SeriesInput,
  type WriteLimits,
} from '../store/write-validation.js';
