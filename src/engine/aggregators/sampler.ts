/** `sampler` (SamplerAggregator): like rate, but v1/(t1−t0) × the sampling length: a value per unit of time. */
import { defineStream } from './stream.js';
import { RateStage, readPer } from './rate.js';

export const sampler = defineStream({
  name: 'sampler',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  params: [
    { name: 'unit', type: 'unit' },
    { name: 'time_zone', type: 'time zone' },
  ],
  compile: (p, ctx) => {
    const per = readPer(p, ctx, p.has('unit') ? 'unit' : undefined);
    return (env, next) => new RateStage(per, env, next, 'sampler', (_v0, v1) => v1);
  },
});
