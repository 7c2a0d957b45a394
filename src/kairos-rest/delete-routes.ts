/**
 * KairosDB's deletes through the app layer's delete path: POST /datapoints/delete (each metric's series and range; the
 * metric's name stays, as in KairosDB) and DELETE /metric/{name} (all its points, then its name).
 */
import { deletePoints } from '../app/delete-points.js';
import { compileTagFilter } from '../model/tag-filter.js';
import { validateMetricName } from '../sources/write-validation.js';
import { checkedQueries, pathParam, readJsonBody, type Call, type Reply, type RestRoute } from './rest-endpoint.js';

export const DELETE_ROUTES: readonly RestRoute[] = [
  { path: '/datapoints/delete', methods: { POST: [deleteDatapoints, 'delete'] } },
  { path: '/metric/:name', methods: { DELETE: [deleteMetric, 'delete'] } },
];

async function deleteDatapoints(call: Call): Promise<Reply> {
  const { ctx } = call;
  const queries = checkedQueries(ctx, await readJsonBody(call, false));
  for (const query of queries) {
    const summary = await deletePoints(
      ctx.sources.primary,
      ctx.loaders,
      query.metric,
      query.range,
      compileTagFilter(query.tags, 'tags'),
    );
    for (const warning of summary.warnings) ctx.log.warn({ metric: query.metric }, warning);
  }
  return { status: 204 };
}

/** KairosDB deletes from Long.MIN to Long.MAX, then the name; the model's widest range stands in for those. */
const ALL_TIME = { startMs: -Number.MAX_SAFE_INTEGER, endMs: Number.MAX_SAFE_INTEGER };

async function deleteMetric(call: Call): Promise<Reply> {
  const source = call.ctx.sources.primary;
  const metric = validateMetricName(pathParam(call, 'name', 'metric'), 'metric', source.limits);
  const summary = await deletePoints(source, call.ctx.loaders, metric, ALL_TIME, () => true);
  for (const warning of summary.warnings) call.ctx.log.warn({ metric }, warning);
  await source.deleteMetricName(metric);
  return { status: 204 };
}
