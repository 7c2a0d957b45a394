/**
 * InfluxDB's write endpoints: `POST /write` (1.x: `db`, `rp` ignored, `precision` n u ms s m h) and `POST /api/v2/write`
 * (2.x: `org` ignored, `bucket`, `precision` ns us ms s), gzip bodies through Content-Encoding. The valid lines are
 * written through the one write path; bad lines are answered as InfluxDB answers a partial write: 400 naming each
 * line and why, after the others are written. 204 when every line was written.
 */
import { writeBatch } from '../app/write.js';
import { InputError } from '../model/errors.js';
import { type IngestCall, readIngestBody } from './ingest-call.js';
import { sendIngestMessage } from './ingest-answers.js';
import { type LineError, type Precision, parseLineProtocol } from './line-protocol.js';
import { lineProtocolBatch } from './line-protocol-batch.js';

/** Which of InfluxDB's two APIs a request came in by. */
export type InfluxApi = 'v1' | 'v2';

const PRECISIONS: Readonly<Record<InfluxApi, Readonly<Record<string, Precision>>>> = {
  v1: { n: 'ns', ns: 'ns', u: 'us', ms: 'ms', s: 's', m: 'm', h: 'h' },
  v2: { ns: 'ns', us: 'us', ms: 'ms', s: 's' },
};

/** At most this many bad lines are named in a partial write's answer; the count says how many more. */
const MAX_NAMED_ERRORS = 10;

export async function writeLines(call: IngestCall, api: InfluxApi): Promise<void> {
  const { res, ctx, deps, source, query } = call;
  const precision = precisionOf(query.get('precision'), api);
  // A turn before the body is read: a sender over the gateway's turns waits with its body in the socket.
  await ctx.waitTurn();
  const text = (await readIngestBody(call, true)).toString('utf8');
  const parsed = parseLineProtocol(text, precision);
  let lines: ReturnType<typeof lineProtocolBatch>;
  try {
    lines = lineProtocolBatch(parsed.points, {
      nowMs: ctx.nowMs,
      separator: deps.settings.influxMetricSeparator,
      limits: { maxPoints: ctx.settings.maxWritePoints, keys: source.limits },
    });
  } catch (error) {
    if (error instanceof InputError)
      deps.metrics.reject('line_protocol', 'refused', parsed.points.length + parsed.errors.length);
    throw error;
  }
  await writeBatch(ctx, source, lines.batch);
  deps.metrics.pointsWritten('line_protocol', lines.points);
  const rejected = [...parsed.errors, ...lines.rejected].sort((a, b) => a.line - b.line);
  deps.metrics.reject('line_protocol', 'invalid', rejected.length);
  if (rejected.length === 0) {
    res.writeHead(204, call.idHeader).end();
    return;
  }
  const form = api === 'v1' ? 'influx-v1' : 'influx-v2';
  sendIngestMessage(res, form, 400, 'invalid', partialWrite(rejected, lines.lines), call.idHeader);
}

/** `partial write: 2 lines rejected, 3 written: line 2: unable to parse 'cpu': missing fields; line 4: ...`. */
export function partialWrite(rejected: readonly LineError[], written: number): string {
  const named = rejected.slice(0, MAX_NAMED_ERRORS).map(describe);
  const more = rejected.length - named.length;
  const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;
  return `partial write: ${lines(rejected.length)} rejected, ${lines(written)} written: ${named.join('; ')}${more > 0 ? `; and ${lines(more)} more` : ''}`;
}

function describe(error: LineError): string {
  // A line that parsed but failed validation: the error names the line and the part already.
  return error.text === '' ? error.reason : `line ${error.line}: unable to parse '${error.text}': ${error.reason}`;
}

function precisionOf(raw: string | null, api: InfluxApi): Precision {
  if (raw === null || raw === '') return 'ns';
  const precision = PRECISIONS[api][raw];
  if (precision === undefined)
    throw new InputError('precision', raw, `must be one of ${Object.keys(PRECISIONS[api]).join(', ')}`);
  return precision;
}
