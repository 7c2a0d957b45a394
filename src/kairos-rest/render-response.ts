/**
 * KairosDB's response JSON (`JsonResponse.formatQuery`), written by hand because JSON.stringify cannot keep a
 * 64-bit long: longs as JSON integers with every digit, doubles as numbers, strings as strings, gaps as null.
 */
import type { QueryOutput } from '../engine/execute.js';
import { longAt, type RunColumns } from '../engine/point-list.js';
import type { Answer, AnswerWriter } from '../server/answer-writer.js';
import { epochText, jsonNumber } from '../server/json-numbers.js';

export interface AnsweredQuery {
  readonly output: QueryOutput;
  /** KairosDB leaves `tags` out of every result of a metric with exclude_tags. */
  readonly excludeTags: boolean;
}

/**
 * `{"queries":[{"sample_size":n,"results":[{name, alias?, group_by?, tags?, values}]}]}`, queries in request
 * order, results in the engine's group order. Groups left without points are dropped, as KairosDB has done since
 * #612 (1.3.0 still printed them with empty values). Written through `out`, which counts the answer's bytes and
 * yields the thread between runs of points.
 */
export async function renderQueryResponse(answers: readonly AnsweredQuery[], out: AnswerWriter): Promise<Answer> {
  try {
    await renderQueries(answers, out);
  } catch (error) {
    out.discard();
    throw error;
  }
  return out.finish();
}

async function renderQueries(answers: readonly AnsweredQuery[], out: AnswerWriter): Promise<void> {
  out.write('{"queries":[');
  for (const [q, { output, excludeTags }] of answers.entries()) {
    out.write(`${q > 0 ? ',' : ''}{"sample_size":${output.sampleSize},"results":[`);
    let first = true;
    for (const group of output.groups) {
      if (group.points.length === 0) continue;
      let result = `${first ? '' : ','}{"name":${JSON.stringify(group.name)}`;
      first = false;
      if (output.alias !== undefined) result += `,"alias":${JSON.stringify(output.alias)}`;
      if (group.groupBy.length > 0) result += `,"group_by":${JSON.stringify(group.groupBy)}`;
      if (!excludeTags) result += `,"tags":${JSON.stringify(group.tags)}`;
      out.write(`${result},"values":[`);
      let separator = '';
      for (const { columns, from, to } of group.points.runs) {
        for (let start = from; start < to; start += POINTS_PER_RUN) {
          out.write(separator + renderValues(columns, start, Math.min(to, start + POINTS_PER_RUN)));
          separator = ',';
          const turn = out.pause();
          if (turn !== undefined) await turn;
        }
      }
      out.write(']}');
    }
    out.write(']}');
  }
  out.write(']}');
}

/** Points rendered between two checks of the time slice. */
const POINTS_PER_RUN = 4096;

export interface TagsResult {
  readonly name: string;
  readonly tags: Readonly<Record<string, readonly string[]>>;
}

/** `/datapoints/query/tags`: one result per metric, no sample_size, no group_by, empty values (KairosDB's EmptyDataPointGroup). */
export function renderTagsResponse(results: readonly TagsResult[]): string {
  const queries = results.map((r) => `{"results":[{"name":${JSON.stringify(r.name)},"tags":${JSON.stringify(r.tags)},"values":[]}]}`);
  return `{"queries":[${queries.join(',')}]}`;
}

/** Points [start, end) of one run's columns as `[t,v]` pairs: one loop per kind, no object per point. */
function renderValues(columns: RunColumns, start: number, end: number): string {
  const parts = new Array<string>(end - start);
  const ts = columns.timestamps;
  switch (columns.kind) {
    case 'double':
      for (let i = start; i < end; i++) parts[i - start] = `[${epochText(ts[i]!)},${jsonNumber(columns.values[i]!)}]`;
      break;
    case 'long':
      for (let i = start; i < end; i++) parts[i - start] = `[${epochText(ts[i]!)},${String(longAt(columns, i))}]`;
      break;
    case 'string':
      for (let i = start; i < end; i++) parts[i - start] = `[${epochText(ts[i]!)},${JSON.stringify(columns.values[i]!)}]`;
      break;
    case 'complex':
      for (let i = start; i < end; i++) {
        parts[i - start] = `[${epochText(ts[i]!)},{"real":${jsonNumber(columns.values[i]!)},"imaginary":${jsonNumber(columns.imaginary[i]!)}}]`;
      }
      break;
    case 'null':
      for (let i = start; i < end; i++) parts[i - start] = `[${epochText(ts[i]!)},null]`;
      break;
  }
  return parts.join(',');
}
