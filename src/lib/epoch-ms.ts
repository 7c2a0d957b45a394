/**
 * The one rule for every time a client gives (points written, query and delete ranges, absolute or relative, on
 * either front end, and aggregators' start and end times) and for every time an answer carries.
 */

/**
 * ±8.64e15 ms (±100,000,000 days, years −271821 to 275760) is what Date, ISO-8601 text and luxon's calendar
 * arithmetic can represent. KairosDB takes any Java long, but a time beyond this cannot be shown as GraphQL's
 * `Time`, and ranges and relative times computed past it come out NaN.
 */
export const MAX_EPOCH_MS = 8.64e15;

/** The reason of every refusal under the rule; callers put the field before it and the value after it. */
export const EPOCH_MS_RULE = `must be a time in whole epoch milliseconds from ${-MAX_EPOCH_MS} to ${MAX_EPOCH_MS}`;

/** True when `value` is a whole number of ms within ±MAX_EPOCH_MS. */
export function isEpochMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= MAX_EPOCH_MS;
}
