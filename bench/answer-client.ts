/**
 * The benchmarks' HTTP client for timed requests: a POST whose clock stops once the whole answer has arrived, inflated
 * and decoded to text, as curl and Go's client (Grafana's backend) take it.
 */
import { request as httpRequest } from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';

/**
 * POSTs `body` and resolves once the whole answer has arrived, inflated and decoded: the bytes gathered, then one
 * inflate call and one decode. It asks for what Node's fetch asks for (`gzip, deflate`), but fetch inflates and decodes
 * through web streams, chunk by chunk, which takes a large answer far longer than this or curl does (bench/RESULTS.md,
 * "The benchmark's client").
 */
export function post(
  url: string,
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': contentType, accept: 'application/json', 'accept-encoding': 'gzip, deflate' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          try {
            const coding = res.headers['content-encoding'] ?? 'identity';
            const inflate = inflaterOf(coding);
            if (inflate === undefined) throw new Error(`${url}: answered in ${coding}, which was not asked for`);
            resolve({ status: res.statusCode ?? 0, text: inflate(Buffer.concat(chunks)).toString('utf8') });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What turns an answer in `coding` into its text's bytes; undefined for a coding this client does not ask for. */
function inflaterOf(coding: string): ((bytes: Buffer) => Buffer) | undefined {
  return coding === 'gzip'
    ? gunzipSync
    : coding === 'deflate'
      ? inflateSync
      : coding === 'identity'
        ? (bytes) => bytes
        : undefined;
}
