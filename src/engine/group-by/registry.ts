/**
 * The table of group-bys by wire name, and the one place a query's group-by list is validated. `series` is
 * Kairograph's own: one group per stored series, which GraphQL's per-series views use.
 */
import { InputError } from '../../model/errors.js';
import { wireFields, type GroupBySpec } from '../../model/query.js';
import { ParamReader, readNumber, type ParamSpec } from '../params.js';
import { BinGrouper } from './bin.js';
import type { GroupBys, PointGrouper } from './group-by.js';
import { TimeGrouper } from './time.js';
import { ValueGrouper } from './value.js';

export interface GroupByDefinition {
  readonly name: string;
  readonly params: readonly ParamSpec[];
}

/** Every group-by, sorted by wire name. */
export const GROUP_BYS: readonly GroupByDefinition[] = [
  { name: 'bin', params: [{ name: 'bins', type: 'number list', required: true }] },
  { name: 'series', params: [] },
  { name: 'tag', params: [{ name: 'tags', type: 'string list', required: true }] },
  {
    name: 'time',
    params: [
      { name: 'range_size', type: 'duration', required: true },
      { name: 'group_count', type: 'integer', required: true },
    ],
  },
  { name: 'value', params: [{ name: 'range_size', type: 'integer', required: true }] },
];

const BY_NAME = new Map(GROUP_BYS.map((g) => [g.name, g]));

/** `startMs` is the query start, which time group ids count from. */
export function compileGroupBys(specs: readonly GroupBySpec[], startMs: number): GroupBys {
  let tags: string[] | undefined;
  let series = false;
  const points: PointGrouper[] = [];
  specs.forEach((spec, i) => {
    const fields = spec.fields ?? wireFields(`group_by[${i}]`);
    const definition = typeof spec.name === 'string' ? BY_NAME.get(spec.name) : undefined;
    if (definition === undefined)
      throw new InputError(
        fields.param('name'),
        spec.name,
        `is not a group-by (one of ${GROUP_BYS.map((g) => g.name).join(', ')})`,
      );
    const p = new ParamReader(spec.params ?? {}, fields, definition.name, definition.params);
    switch (definition.name) {
      case 'tag':
        if (tags !== undefined || series)
          throw new InputError(
            fields.param('name'),
            fields.name ?? spec.name,
            'may appear once, and not together with series',
          );
        tags = readTagNames(p.value('tags'), p.field('tags'));
        break;
      case 'series':
        if (tags !== undefined || series)
          throw new InputError(
            fields.param('name'),
            fields.name ?? spec.name,
            'may appear once, and not together with tag',
          );
        series = true;
        break;
      case 'time':
        points.push(new TimeGrouper(p.duration('range_size'), p.integer('group_count', 1, 2_147_483_647), startMs));
        break;
      case 'value':
        points.push(new ValueGrouper(p.integer('range_size', 1, 2_147_483_647)));
        break;
      default:
        points.push(new BinGrouper(readBins(p.value('bins'), p.field('bins'))));
    }
  });
  return { tags, series, points };
}

function readTagNames(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new InputError(field, value, 'must be a non-empty list of tag names');
  value.forEach((name: unknown, i) => {
    if (typeof name !== 'string' || name === '')
      throw new InputError(`${field}[${i}]`, name, 'must be a non-empty tag name');
  });
  return value as string[];
}

/** KairosDB takes any list; an unsorted one would put values in bins that overlap, so bins must ascend. */
function readBins(value: unknown, field: string): number[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new InputError(field, value, 'must be a non-empty list of numbers');
  const bins = value.map((v: unknown, i) => readNumber(v, `${field}[${i}]`));
  bins.forEach((b, i) => {
    if (i > 0 && b <= bins[i - 1]!)
      throw new InputError(`${field}[${i}]`, value[i], `must be greater than the bin before it (${bins[i - 1]})`);
  });
  return bins;
}
