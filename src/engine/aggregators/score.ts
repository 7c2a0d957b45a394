/**
 * `score` (ScoreAggregator): each value becomes the number of thresholds it is not below (0..n), or n minus that
 * for `descending`. A value equal to a threshold is below a `superior` one and above an `inferior` one; thresholds
 * are sorted by value, inferior before superior at equal values (Threshold.compareTo).
 */
import { InputError } from '../../model/errors.js';
import type { PointKind } from '../point-list.js';
import { readNumber } from '../params.js';
import type { PointSink } from '../points.js';
import { defineStream, PointStage } from './stream.js';

interface Threshold {
  readonly value: number;
  readonly superior: boolean;
}

export const score = defineStream({
  name: 'score',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  params: [
    { name: 'thresholds', type: 'thresholds', required: true },
    { name: 'order', type: 'enum', options: ['ascending', 'descending'], default: 'ascending' },
  ],
  compile: (p) => {
    const thresholds = readThresholds(p.value('thresholds'), p.field('thresholds'));
    const descending = p.option('order') === 'descending';
    return (_env, next) => new ScoreStage(next, thresholds, descending);
  },
});

function readThresholds(value: unknown, field: string): Threshold[] {
  if (!Array.isArray(value)) throw new InputError(field, value, 'must be a list of {value, boundary}');
  const thresholds = value.map((t: unknown, i): Threshold => {
    const path = `${field}[${i}]`;
    if (typeof t !== 'object' || t === null || Array.isArray(t))
      throw new InputError(path, t, 'must be an object {value, boundary}');
    const { value: v, boundary = 'superior', ...rest } = t as Record<string, unknown>;
    for (const key of Object.keys(rest))
      throw new InputError(`${path}.${key}`, rest[key], 'is not a field of {value, boundary}');
    if (typeof boundary !== 'string' || !/^(superior|inferior)$/i.test(boundary))
      throw new InputError(`${path}.boundary`, boundary, 'must be one of superior, inferior');
    return { value: readNumber(v, `${path}.value`), superior: boundary.toLowerCase() === 'superior' };
  });
  return thresholds.sort((a, b) => a.value - b.value || Number(a.superior) - Number(b.superior));
}

class ScoreStage extends PointStage {
  constructor(
    next: PointSink,
    private readonly thresholds: readonly Threshold[],
    private readonly descending: boolean,
  ) {
    super(next);
  }

  point(ts: number, _kind: PointKind, num: number): void {
    const thresholds = this.thresholds;
    let score = 0;
    while (score < thresholds.length) {
      const t = thresholds[score]!;
      if (num < t.value || (num === t.value && t.superior)) break;
      score++;
    }
    this.next.point(ts, 'double', this.descending ? thresholds.length - score : score, undefined);
  }
}
