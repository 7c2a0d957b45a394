/**
 * Google's OAuth access tokens for Bigtable's service, from the metadata server every Google Cloud machine has (Compute
 * Engine, GKE with workload identity, Cloud Run): the machine's service account, no key file. A token is kept until a
 * minute before it expires, and one fetch serves every call waiting for it.
 */

/** The metadata server's token of the machine's default service account. */
const METADATA_TOKEN_URL = 'http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token';

/** A token is fetched again this long before Google says it expires. */
const EARLY_MS = 60_000;

/** `Bearer <token>` for each call, fetched from `url` when the one kept is about to expire. */
export function metadataAuthorization(url = METADATA_TOKEN_URL, now = () => Date.now()): () => Promise<string> {
  let kept: { header: string; untilMs: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    let response: Response;
    try {
      response = await fetch(url, { headers: { 'metadata-flavor': 'Google' }, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new Error(`no access token from the metadata server ${url}: ${(error as Error).message}`, { cause: error });
    }
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (response.status !== 200 || typeof body.access_token !== 'string' || typeof body.expires_in !== 'number')
      throw new Error(`no access token from the metadata server ${url}: it answered ${response.status}`);
    kept = { header: `Bearer ${body.access_token}`, untilMs: now() + body.expires_in * 1000 - EARLY_MS };
    return kept.header;
  };
  return async () => {
    if (kept !== undefined && now() < kept.untilMs) return kept.header;
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
