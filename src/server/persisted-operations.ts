/**
 * Persisted operations: the manifest codegen writes from operations/*.graphql (or an operator's own file), served by
 * hash (`extensions.persistedQuery.sha256Hash`), and the policy for full-text operations: allowed by default, or
 * with PERSISTED_ONLY only from clients that send a trusted token (GraphiQL users and Grafana data sources add the
 * header; CI pipelines send hashes).
 */
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError } from 'graphql-yoga';
import type { Config } from '../config.js';

/** src/server and dist/server are both two levels below the project root. */
const BUILT_IN_MANIFEST = new URL('../../src/generated/operations/persisted-documents.json', import.meta.url);

const TRUSTED_TOKEN_HEADER = 'x-kairograph-token';

/** Keyed by hash; a Map, because clients choose the hash they look up (`__proto__` must find nothing). */
export type PersistedManifest = ReadonlyMap<string, string>;

export function loadManifest(config: Config): PersistedManifest {
  const path = config.persistedOperationsFile || BUILT_IN_MANIFEST;
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (typeof manifest !== 'object' || manifest === null || Object.values(manifest).some((v) => typeof v !== 'string')) {
    throw new Error(`persisted operations manifest ${String(path)} must be a JSON object of "sha256:<hash>" to document text`);
  }
  return new Map(Object.entries(manifest as Record<string, string>));
}

export function usePersistedOperationsPolicy(config: Config, manifest: PersistedManifest) {
  const trusted = new Set(config.trustedClientTokens);
  return usePersistedOperations({
    // Clients send the bare hex digest (the APQ shape); codegen's manifest keys carry the algorithm.
    getPersistedOperation: (hash) => manifest.get(`sha256:${hash}`) ?? manifest.get(hash) ?? null,
    allowArbitraryOperations: (request) => !config.persistedOnly || trusted.has(request.headers.get(TRUSTED_TOKEN_HEADER) ?? ''),
    customErrors: {
      notFound: ({ params }) =>
        createGraphQLError(
          `no persisted operation has the hash ${JSON.stringify(persistedHash(params.extensions))}; run \`npm run codegen\` and deploy the manifest, or send the query text`,
          { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 404 } } },
        ),
      persistedQueryOnly: {
        message: `this gateway accepts only persisted operations (extensions.persistedQuery.sha256Hash); full query text needs a trusted ${TRUSTED_TOKEN_HEADER} header`,
        extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 403 } },
      },
      keyNotFound: {
        // Also what a request without any query gets, so it names both ways of sending one.
        message: 'the request has no query: send the query text, or a persisted operation as extensions.persistedQuery.sha256Hash (with version 1)',
        extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', http: { status: 400 } },
      },
    },
  });
}

function persistedHash(extensions: Record<string, unknown> | undefined): unknown {
  const persisted = extensions?.['persistedQuery'] as { sha256Hash?: unknown } | undefined;
  return persisted?.sha256Hash;
}
