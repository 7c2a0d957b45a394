/** KairosDB's metric names and writes: GET /metricnames and POST /datapoints, through the app layer's write path. */
import { metricNames } from '../app/metric-names.js';
import { writeBatch } from '../app/write.js';
import { parseDatapoints } from './parse-datapoints.js';
import { readJsonBody, type Call, type Reply, type RestRoute } from './rest-endpoint.js';

export const DATAPOINT_ROUTES: readonly RestRoute[] = [
  { path: '/metricnames', methods: { GET: [metricNamesOf, 'read'] } },
  { path: '/datapoints', methods: { POST: [addDatapoints, 'write'] } },
];

async function metricNamesOf({ ctx, params }: Call): Promise<Reply> {
  const names = await metricNames(ctx.sources.primary, params.get('prefix') ?? '', 'prefix');
  return { status: 200, body: JSON.stringify({ results: names }) };
}

async function addDatapoints(call: Call): Promise<Reply> {
  const { ctx } = call;
  const json = await readJsonBody(call, true);
  const source = ctx.sources.primary;
  const batch = parseDatapoints(json, { maxPoints: ctx.settings.maxWritePoints, keys: source.limits });
  await writeBatch(ctx, source, batch);
  return { status: 204 };
}
