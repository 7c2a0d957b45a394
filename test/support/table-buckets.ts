/** Fixtures of the table layout's bucket tests (src/sources/table/buckets.test.ts, bucket-columns.test.ts). */
import { Buckets, type BucketSpec } from '../../src/sources/table/buckets.js';
import type { Bucket } from '../../src/sources/table/bucket-layouts.js';

export const H = 3_600_000;
export const D = 86_400_000;
export const utc = (kind: BucketSpec['kind'], column: string, widthMs?: number): Buckets =>
  new Buckets({ kind, zone: 'UTC', ...(widthMs !== undefined ? { widthMs } : {}) }, column);
export const berlin = (kind: 'date-text' | 'date', column: string): Buckets =>
  new Buckets({ kind, zone: 'Europe/Berlin' }, column);
export const bucket = (value: unknown, startMs: number, endMs: number): Bucket => ({ value, startMs, endMs });

/** 2023-11-14T22:13:20Z, 23:13:20 in Berlin. */
export const T = 1700000000000;
/** 2023-11-14T00:00Z. */
export const T_DAY = 1699920000000;
