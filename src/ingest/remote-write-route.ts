/**
 * `POST /prometheus/<source>/api/v1/write`: Prometheus remote write 1.0 and 2.0 into the source, through the one write
 * path. The version comes from Content-Type as both specs say (no `proto`, or `prometheus.WriteRequest`: 1.0;
 * `io.prometheus.write.v2.Request`: 2.0; anything else 415); the body is snappy's block format. The request is
 * decoded and validated whole before anything is written, and answered 204 once durable, with 2.0's written counts.
 */
import { writeBatch } from '../app/write.js';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../http/http-errors.js';
import { send } from '../http/send-answer.js';
import { InputError, KairographError } from '../model/errors.js';
import { type IngestCall, readIngestBody } from './ingest-call.js';
import { remoteWriteBatch } from './remote-write-batch.js';
import { decodeWriteRequest, ProtobufError, type RemoteWriteVersion } from './remote-write-decode.js';
import { SnappyError, snappyUncompress } from './snappy-block.js';

const MESSAGES: Readonly<Record<string, RemoteWriteVersion>> = {
  'prometheus.WriteRequest': 1,
  'io.prometheus.write.v2.Request': 2,
};

export async function remoteWrite(call: IngestCall): Promise<void> {
  const { req, res, ctx, deps, source } = call;
  const version = versionOf(req.headers['content-type']);
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  // Prometheus's own receiver takes a body without Content-Encoding as snappy too.
  if (encoding !== '' && encoding !== 'snappy')
    throw new UnsupportedMediaTypeError(
      `Content-Encoding ${encoding} is not supported: remote write bodies are snappy-compressed (Content-Encoding: snappy)`,
    );
  // A turn before the body is read: a sender over the gateway's turns waits with its body in the socket.
  await ctx.waitTurn();
  const body = await readIngestBody(call, false);
  let decoded: ReturnType<typeof decodeWriteRequest> | undefined;
  let result: ReturnType<typeof remoteWriteBatch>;
  try {
    decoded = decodeWriteRequest(snappyUncompress(body, deps.settings.maxBodyBytes), version);
    // Reads 1.0's label fields too (only those of series it has not seen): they may be malformed.
    result = remoteWriteBatch(decoded, { maxPoints: ctx.settings.maxWritePoints, keys: source.limits });
  } catch (error) {
    if (error instanceof SnappyError && error.tooLarge)
      throw new PayloadTooLargeError(`${error.message} (REST_MAX_BODY_BYTES)`);
    if (error instanceof SnappyError || error instanceof ProtobufError) {
      deps.metrics.reject('remote_write', 'undecodable', 1);
      throw new KairographError('BAD_USER_INPUT', error.message);
    }
    if (error instanceof InputError && decoded !== undefined) {
      let samples = 0;
      for (const series of decoded.series) samples += series.values.length + series.histograms;
      deps.metrics.reject('remote_write', 'invalid', samples);
    }
    throw error;
  }
  await writeBatch(ctx, source, result.batch);
  const { counts } = result;
  deps.metrics.pointsWritten('remote_write', counts.stored);
  deps.metrics.reject('remote_write', 'stale_marker', counts.stale);
  deps.metrics.reject('remote_write', 'nan', counts.nan);
  deps.metrics.reject('remote_write', 'infinite', counts.infinite);
  deps.metrics.reject('remote_write', 'histogram', counts.histograms);
  deps.metrics.reject('remote_write', 'exemplar', counts.exemplars);
  // Samples left out by choice (stale markers, NaN, ±Inf) count as written: the sender must neither retry them nor
  // take the request for a receiver that only speaks 1.0. Histograms and exemplars were not written.
  const written: Record<string, string> =
    version === 2
      ? {
          'x-prometheus-remote-write-samples-written': String(
            counts.stored + counts.stale + counts.nan + counts.infinite,
          ),
          'x-prometheus-remote-write-histograms-written': '0',
          'x-prometheus-remote-write-exemplars-written': '0',
        }
      : {};
  send(res, 204, undefined, {}, { ...call.idHeader, ...written });
}

/** The protocol version Content-Type names; 415 for a type or message neither version sends. */
function versionOf(header: string | undefined): RemoteWriteVersion {
  if (header === undefined || header.trim() === '') return 1;
  const [media, ...params] = header.split(';').map((part) => part.trim());
  if (media!.toLowerCase() !== 'application/x-protobuf')
    throw new UnsupportedMediaTypeError(
      `Content-Type ${media} is not supported: remote write sends application/x-protobuf`,
    );
  const proto = params.find((p) => p.toLowerCase().startsWith('proto='))?.slice('proto='.length);
  if (proto === undefined) return 1;
  const version = MESSAGES[proto];
  if (version === undefined)
    throw new UnsupportedMediaTypeError(
      `proto=${proto} is not supported: this receiver takes ${Object.keys(MESSAGES).join(' and ')}`,
    );
  return version;
}
