/**
 * Every PromQL function the engine evaluates, by name: the families' tables joined. The parser, the type checker
 * and the evaluator all look functions up here.
 */
import type { FunctionDef } from './function-types.js';
import { HISTOGRAM_FUNCTIONS } from './histogram-functions.js';
import { LABEL_FUNCTIONS } from './label-functions.js';
import { MATH_FUNCTIONS } from './math-functions.js';
import { MISC_FUNCTIONS } from './misc-functions.js';
import { OVER_TIME_FUNCTIONS } from './over-time-functions.js';
import { RATE_FUNCTIONS } from './rate-functions.js';
import { TIME_FUNCTIONS } from './time-functions.js';

const ALL: readonly FunctionDef[] = [
  ...RATE_FUNCTIONS,
  ...OVER_TIME_FUNCTIONS,
  ...MATH_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...LABEL_FUNCTIONS,
  ...HISTOGRAM_FUNCTIONS,
  ...MISC_FUNCTIONS,
];

export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map(ALL.map((f) => [f.name, f]));

export function functionDef(name: string): FunctionDef | undefined {
  return FUNCTIONS.get(name);
}
