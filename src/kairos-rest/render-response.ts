/**
 * KairosDB's response JSON (`JsonResponse.formatQuery`), written by hand because JSON.stringify cannot keep a
 * 64-bit long: longs as JSON integers with every digit, doubles as numbers, strings as strings, gaps as null.
 */
import type { QueryOutput } from '../engine/execute.js';
import type { ComplexValue, PointList } from '../engine/point-list.js';
import type { Answer, AnswerWriter } from '../server/answer-writer.js';

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
      for (let start = 0; start < group.points.length; start += POINTS_PER_RUN) {
        out.write(renderValues(group.points, start, Math.min(group.points.length, start + POINTS_PER_RUN)));
        const turn = out.pause();
        if (turn !== undefined) await turn;
      }
      out.write(']}');
    }
    out.write(']}');
  }
  out.write(']}');
  return out.finish();
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

/** Points [start, end) as `[t,v]` pairs, with the comma that follows the previous run. */
function renderValues(points: PointList, start: number, end: number): string {
  const parts = new Array<string>(end - start);
  const { timestamps, values, kinds } = points;
  for (let i = start; i < end; i++) {
    const v = values[i]!;
    let text: string;
    switch (kinds[i]) {
      case 'long':
        text = typeof v === 'bigint' ? v.toString() : String(v);
        break;
      case 'double':
        text = jsonNumber(v as number);
        break;
      case 'string':
        text = JSON.stringify(v);
        break;
      case 'complex': {
        const c = v as ComplexValue;
        text = `{"real":${jsonNumber(c.real)},"imaginary":${jsonNumber(c.imaginary)}}`;
        break;
      }
      default:
        text = 'null';
    }
    parts[i - start] = `[${jsonNumber(timestamps[i]!)},${text}]`;
  }
  return `${start > 0 ? ',' : ''}${parts.join(',')}`;
}

/**
 * Every double and time of an answer is written through here. KairosDB's org.json refuses NaN and infinities with
 * a 500; JSON has no word for them, so they answer null (the engine keeps times within src/epoch-ms.ts anyway).
 */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
