/**
 * A PromQL result as Prometheus's API writes it: `{"resultType":...,"result":...}`, times as seconds with the
 * milliseconds after the point (jsonutil.MarshalTimestamp: `1.5` is `1.500`), values as strings in Go's shortest
 * form (`"NaN"`, `"+Inf"`). Points count against the request's points-returned budget as they are written, and the
 * writer may yield the thread between series.
 */
import type { RequestBudget } from '../engine/budget.js';
import { formatFloat } from '../engine/promql/format-float.js';
import type { Labels } from '../engine/promql/labels.js';
import type { QueryResult } from '../engine/promql/promql-engine.js';
import type { AnswerWriter } from '../http/answer-writer.js';

export async function writeResult(result: QueryResult, out: AnswerWriter, budget: RequestBudget): Promise<void> {
  const { value } = result;
  switch (value.type) {
    case 'scalar':
      out.write(`{"resultType":"scalar","result":${point(result.timeMs, value.value)}}`);
      return;
    case 'string':
      out.write(`{"resultType":"string","result":[${timestamp(result.timeMs)},${JSON.stringify(value.value)}]}`);
      return;
    case 'vector': {
      budget.addReturned(value.samples.length);
      out.write('{"resultType":"vector","result":[');
      for (const [i, sample] of value.samples.entries()) {
        out.write(
          `${i > 0 ? ',' : ''}{"metric":${labelsJson(sample.labels)},"value":${point(result.timeMs, sample.value)}}`,
        );
        await pause(out);
      }
      out.write(']}');
      return;
    }
    case 'matrix': {
      out.write('{"resultType":"matrix","result":[');
      for (const [i, series] of value.series.entries()) {
        budget.addReturned(series.timestampsMs.length);
        out.write(`${i > 0 ? ',' : ''}{"metric":${labelsJson(series.labels)},"values":[`);
        for (let k = 0; k < series.timestampsMs.length; k++)
          out.write(`${k > 0 ? ',' : ''}${point(series.timestampsMs[k]!, series.values[k]!)}`);
        out.write(']}');
        await pause(out);
      }
      out.write(']}');
      return;
    }
  }
}

async function pause(out: AnswerWriter): Promise<void> {
  const turn = out.pause();
  if (turn !== undefined) await turn;
}

function point(timeMs: number, value: number): string {
  return `[${timestamp(timeMs)},"${formatFloat(value)}"]`;
}

/** Prometheus's jsonutil.MarshalTimestamp: whole seconds, then `.` and three digits when there are milliseconds. */
export function timestamp(timeMs: number): string {
  const sign = timeMs < 0 ? '-' : '';
  const ms = Math.abs(Math.round(timeMs));
  const fraction = ms % 1000;
  const seconds = (ms - fraction) / 1000;
  return fraction === 0 ? `${sign}${seconds}` : `${sign}${seconds}.${String(fraction).padStart(3, '0')}`;
}

/** A label set as a JSON object, in the set's (sorted) order. */
function labelsJson(labels: Labels): string {
  let text = '{';
  for (const [i, l] of labels.entries())
    text += `${i > 0 ? ',' : ''}${JSON.stringify(l.name)}:${JSON.stringify(l.value)}`;
  return `${text}}`;
}
