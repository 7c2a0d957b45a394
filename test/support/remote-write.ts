// Writes series into a Prometheus (or anything with its remote-write receiver) as Prometheus's own senders do:
// protobuf messages of remote write 1.0 or 2.0, snappy block-compressed, POSTed to /api/v1/write.
//
// The three or four messages are written field by field with @bufbuild/protobuf's wire writer (varints, doubles,
// UTF-8, length prefixes) rather than generated from .proto files: code generation would add a build step and a
// tool for messages that are a dozen fields in all, and a reflection schema would only restate these field numbers.
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import snappy from 'snappyjs';
import { isStale } from '../../src/engine/promql/values.js';

/** Prometheus's staleness marker, written by its bits: V8 may set a NaN's quiet bit as it passes through an array. */
const STALE_BITS = 0x7ff0000000000002n;

export interface WriteSeries {
  /** Label names to values, `__name__` included; sorted and checked here. */
  readonly labels: Readonly<Record<string, string>>;
  /** Milliseconds since the epoch, ascending. */
  readonly timestampsMs: readonly number[];
  /** One value per timestamp; Prometheus's staleness marker (a NaN with its own bits) is sent as it is. */
  readonly values: readonly number[];
}

export interface RemoteWriteOptions {
  /** Protocol 1.0 (`prometheus.WriteRequest`, the default) or 2.0 (`io.prometheus.write.v2.Request`). */
  readonly version?: 1 | 2;
  /** At most this many samples per request (default 50,000): Prometheus caps a decoded body at 32 MiB. */
  readonly maxSamplesPerRequest?: number;
}

export interface RemoteWriteSummary {
  readonly requests: number;
  readonly samples: number;
}

/**
 * Sends the series to `<baseUrl>/api/v1/write` in requests ordered by time: every sample of a request is at or after
 * every sample of the requests before it. Prometheus's head refuses a sample older than about an hour before the
 * newest one it holds ("out of bounds"), so writing series one after another over a longer span would fail, while
 * time slices across all series are accepted into an empty server whatever their age.
 */
export async function remoteWrite(
  baseUrl: string,
  series: readonly WriteSeries[],
  options: RemoteWriteOptions = {},
): Promise<RemoteWriteSummary> {
  const version = options.version ?? 1;
  let requests = 0;
  let samples = 0;
  for (const slice of timeSlices(series, options.maxSamplesPerRequest ?? 50_000)) {
    const body = version === 1 ? encodeWriteRequestV1(slice) : encodeWriteRequestV2(slice);
    const response = await fetch(`${baseUrl.replace(/\/$/, '')}/api/v1/write`, {
      method: 'POST',
      headers: {
        'content-encoding': 'snappy',
        'content-type':
          version === 1 ? 'application/x-protobuf' : 'application/x-protobuf;proto=io.prometheus.write.v2.Request',
        'x-prometheus-remote-write-version': version === 1 ? '0.1.0' : '2.0.0',
      },
      body: Buffer.from(snappy.compress(body)),
    });
    if (response.status < 200 || response.status > 299)
      throw new Error(`remote write answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
    const sent = slice.reduce((n, s) => n + s.timestampsMs.length, 0);
    // A 2.0 receiver says how many samples it stored; fewer than sent would be a silent loss.
    const written = response.headers.get('x-prometheus-remote-write-samples-written');
    if (version === 2 && written !== null && Number(written) !== sent)
      throw new Error(`remote write 2.0 stored ${written} of ${sent} samples`);
    requests++;
    samples += sent;
  }
  return { requests, samples };
}

/** A 1.0 series' label fields, in the order given (a test may repeat a name or leave `__name__` out). */
export function writeLabelsV1(w: BinaryWriter, labels: Iterable<readonly [string, string]>): void {
  for (const [name, value] of labels)
    w.tag(1, WireType.LengthDelimited)
      .fork()
      .tag(1, WireType.LengthDelimited)
      .string(name)
      .tag(2, WireType.LengthDelimited)
      .string(value)
      .join();
}

/** `prometheus.WriteRequest`: timeseries = 1 { labels = 1 { name = 1, value = 2 }, samples = 2 { value = 1, timestamp = 2 } }. */
export function encodeWriteRequestV1(series: readonly WriteSeries[]): Uint8Array {
  const w = new BinaryWriter();
  for (const s of series) {
    w.tag(1, WireType.LengthDelimited).fork();
    writeLabelsV1(w, sortedLabels(s.labels));
    writeSamples(w, s);
    w.join();
  }
  return w.finish();
}

/**
 * `io.prometheus.write.v2.Request`: symbols = 4 (a table of strings, `""` first), timeseries = 5 { labels_refs = 1
 * (packed name, value indexes into symbols), samples = 2 { value = 1, timestamp = 2 } }. No metadata: its type then
 * reads as unspecified, which Prometheus accepts.
 */
export function encodeWriteRequestV2(series: readonly WriteSeries[]): Uint8Array {
  const symbols = new Map<string, number>([['', 0]]);
  const ref = (text: string): number => {
    let at = symbols.get(text);
    if (at === undefined) symbols.set(text, (at = symbols.size));
    return at;
  };
  const refs = series.map((s) => sortedLabels(s.labels).flatMap(([name, value]) => [ref(name), ref(value)]));
  const w = new BinaryWriter();
  for (const text of symbols.keys()) w.tag(4, WireType.LengthDelimited).string(text);
  series.forEach((s, i) => {
    w.tag(5, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).fork();
    for (const r of refs[i]!) w.uint32(r);
    w.join();
    writeSamples(w, s);
    w.join();
  });
  return w.finish();
}

function writeSamples(w: BinaryWriter, s: WriteSeries): void {
  if (s.timestampsMs.length !== s.values.length)
    throw new Error(`${JSON.stringify(s.labels)}: ${s.timestampsMs.length} timestamps but ${s.values.length} values`);
  for (let i = 0; i < s.timestampsMs.length; i++) {
    const value = s.values[i]!;
    w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64);
    if (isStale(value)) w.fixed64(STALE_BITS);
    else w.double(value);
    w.tag(2, WireType.Varint).int64(s.timestampsMs[i]!).join();
  }
}

/** Labels sorted by the bytes of their names, as both protocols require; empty names or values are refused. */
function sortedLabels(labels: Readonly<Record<string, string>>): [string, string][] {
  const entries = Object.entries(labels);
  for (const [name, value] of entries)
    if (name === '' || value === '') throw new Error(`empty label name or value in ${JSON.stringify(labels)}`);
  if (!('__name__' in labels)) throw new Error(`no __name__ in ${JSON.stringify(labels)}`);
  return entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * Splits the series into requests of about `max` samples (more only when many samples share the cut's timestamp), each
 * request's samples no older than the last one's.
 */
function* timeSlices(series: readonly WriteSeries[], max: number): Generator<WriteSeries[]> {
  const at = series.map(() => 0);
  const upTo = (s: WriteSeries, from: number, t: number): number => {
    let lo = from;
    let hi = s.timestampsMs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s.timestampsMs[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const count = (t: number): number => series.reduce((n, s, i) => n + upTo(s, at[i]!, t) - at[i]!, 0);
  for (;;) {
    const next = series.map((s, i) => s.timestampsMs[at[i]!]).filter((t) => t !== undefined);
    if (next.length === 0) return;
    // The latest cut that takes at most `max` samples, but at least the oldest timestamp left.
    let lo = Math.min(...next);
    let hi = Math.max(...series.map((s) => s.timestampsMs.at(-1) ?? lo));
    while (lo < hi) {
      const mid = lo + Math.ceil((hi - lo) / 2);
      if (count(mid) <= max) lo = mid;
      else hi = mid - 1;
    }
    const slice: WriteSeries[] = [];
    series.forEach((s, i) => {
      const from = at[i]!;
      const to = upTo(s, from, lo);
      if (to > from)
        slice.push({
          labels: s.labels,
          timestampsMs: s.timestampsMs.slice(from, to),
          values: s.values.slice(from, to),
        });
      at[i] = to;
    });
    yield slice;
  }
}
