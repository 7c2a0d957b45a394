/**
 * KairosDB's queries: GET and POST /datapoints/query through the engine, answered as KairosDB's query JSON, and POST
 * /datapoints/query/tags, the tags of the series a query would read.
 */
import type { RequestScope } from '../app/request-scope.js';
import type { QueryOutput } from '../engine/execute.js';
import { AnswerWriter } from '../http/answer-writer.js';
import type { AnswerEncoding } from '../http/compression.js';
import type { JsonValue } from '../kairos-json/json-text.js';
import { InputError } from '../model/errors.js';
import { findTags } from './find-tags.js';
import { renderQueryResponse, renderTagsResponse } from './render-response.js';
import { checkedQueries, parseJsonText, readJsonBody, type Call, type Reply, type RestRoute } from './rest-endpoint.js';

/** The route of a query with `save_as` also needs `write` (RequestScope.runQuery). */
export const QUERY_ROUTES: readonly RestRoute[] = [
  { path: '/datapoints/query', methods: { GET: [queryFromUrl, 'read'], POST: [queryFromBody, 'read'] } },
  { path: '/datapoints/query/tags', methods: { POST: [queryTags, 'read'] } },
];

async function queryFromBody(call: Call): Promise<Reply> {
  const { ctx, encoding } = call;
  return runQueries(ctx, await readJsonBody(call, false), encoding);
}

/** GET ?query=<url-encoded JSON>, as KairosDB's getQuery. */
async function queryFromUrl({ ctx, params, encoding }: Call): Promise<Reply> {
  const text = params.get('query');
  if (text === null || text.trim() === '')
    throw new InputError('query', text, 'is required: the query JSON, URL-encoded');
  return runQueries(ctx, parseJsonText(text, 'the query parameter', false), encoding);
}

/** Every metric is validated before any runs (a save_as must not write for a request that is refused), then all run together. */
async function runQueries(ctx: RequestScope, json: JsonValue, encoding: AnswerEncoding | undefined): Promise<Reply> {
  const queries = checkedQueries(ctx, json);
  const settled = await Promise.allSettled(queries.map((query, i) => ctx.runQuery(query, `metrics[${i}]`)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  const outputs = settled.map((s) => (s as PromiseFulfilledResult<QueryOutput>).value);
  const answers = outputs.map((output, i) => ({ output, excludeTags: queries[i]!.excludeTags }));
  return { status: 200, body: await renderQueryResponse(answers, new AnswerWriter(ctx.budget, ctx.lane, encoding)) };
}

/** Aggregators are parsed and checked, then ignored, as KairosDB does for this endpoint. */
async function queryTags(call: Call): Promise<Reply> {
  const { ctx, deps } = call;
  const queries = checkedQueries(ctx, await readJsonBody(call, false));
  const found = await Promise.all(
    queries.map((query) => findTags(ctx.sources.primary, ctx.loaders, query, deps.settings.tagsRowPeriods)),
  );
  for (const [i, f] of found.entries())
    for (const warning of f.warnings) ctx.log.warn({ query: `metrics[${i}]` }, warning);
  return { status: 200, body: renderTagsResponse(found.map((f, i) => ({ name: queries[i]!.metric, tags: f.tags }))) };
}
