/**
 * KairosDB's response JSON (`JsonResponse.formatQuery`), written by hand because JSON.stringify cannot keep a
 * 64-bit long: longs as JSON integers with every digit, doubles as numbers (NaN and the infinities, which KairosDB's
 * org.json refuses with a 500 and JSON cannot write, as null), strings as strings, gaps as null. The values are
 * written straight into bytes (JsonBytes).
 */
import type { QueryOutput } from '../engine/execute.js';
import { longAt, type RunColumns } from '../engine/point-list.js';
import type { Answer, AnswerWriter } from '../http/answer-writer.js';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  JsonBytes,
  jsonBytes,
  NULL,
  NumberRun,
  OPEN_BRACKET,
} from '../http/json-bytes.js';

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
  const values = new JsonBytes();
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
      let separator = false;
      for (const { columns, from, to } of group.points.runs) {
        for (let start = from; start < to; start += POINTS_PER_RUN) {
          if (separator) values.byte(COMMA);
          writeValues(columns, start, Math.min(to, start + POINTS_PER_RUN), values);
          separator = true;
          for (const piece of values.take()) out.writeBytes(piece);
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
  const queries = results.map(
    (r) => `{"results":[{"name":${JSON.stringify(r.name)},"tags":${JSON.stringify(r.tags)},"values":[]}]}`,
  );
  return `{"queries":[${queries.join(',')}]}`;
}

/** Points [start, end) of one run's columns as `[t,v]` pairs: one loop per kind, no object or string per point. */
function writeValues(columns: RunColumns, start: number, end: number, out: JsonBytes): void {
  const ts = columns.timestamps;
  // Doubles are formatted a few thousand at a time (NumberRun), as GraphQL's are.
  const values = columns.kind === 'double' || columns.kind === 'complex' ? new NumberRun(columns.values) : undefined;
  const imaginary = columns.kind === 'complex' ? new NumberRun(columns.imaginary) : undefined;
  for (let i = start; i < end; i++) {
    if (i > start) out.byte(COMMA);
    out.byte(OPEN_BRACKET);
    out.epoch(ts[i]!);
    out.byte(COMMA);
    switch (columns.kind) {
      case 'double':
        out.nextOf(values!.seek(i));
        break;
      case 'long':
        out.text(String(longAt(columns, i)));
        break;
      case 'string':
        out.text(JSON.stringify(columns.values[i]!));
        break;
      case 'complex':
        out.bytes(REAL);
        out.nextOf(values!.seek(i));
        out.bytes(IMAGINARY);
        out.nextOf(imaginary!.seek(i));
        out.byte(CLOSE_BRACE);
        break;
      case 'null':
        out.bytes(NULL);
        break;
    }
    out.byte(CLOSE_BRACKET);
  }
}

const REAL = jsonBytes('{"real":');
const IMAGINARY = jsonBytes(',"imaginary":');
