/**
 * Persisted operations: the manifest codegen writes from operations/*.graphql (or an operator's own file), served by
 * hash (`extensions.persistedQuery.sha256Hash`), and the policy for full-text operations: allowed by default, or
 * with PERSISTED_ONLY only from clients that send credentials (src/http/auth.ts: GraphiQL users and Grafana data
 * sources add a header; CI pipelines send hashes or a bearer token). Clients that use automatic persisted queries
 * (Apollo's APQ link) register their own hashes by sending query text with its hash, once the hash is checked.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { TOKEN_HEADER } from '../http/auth.js';

/** src/graphql and dist/graphql are both two levels below the project root. */
const BUILT_IN_MANIFEST = new URL('../../src/generated/operations/persisted-documents.json', import.meta.url);

/** Keyed by hash; a Map, because clients choose the hash they look up (`__proto__` must find nothing). */
export type PersistedManifest = ReadonlyMap<string, string>;

export function loadManifest(config: { readonly persistedOperationsFile: string }): PersistedManifest {
  const path = config.persistedOperationsFile || BUILT_IN_MANIFEST;
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (typeof manifest !== 'object' || manifest === null || Object.values(manifest).some((v) => typeof v !== 'string')) {
    throw new Error(
      `persisted operations manifest ${String(path)} must be a JSON object of "sha256:<hash>" to document text`,
    );
  }
  return new Map(Object.entries(manifest as Record<string, string>));
}

/**
 * Automatic persisted queries registered by clients: bounded (an LRU of documents, by count and text size), since
 * any client that may send text may register; one a client needs again after eviction is registered again by its
 * APQ link's retry.
 */
const APQ_MAX_ENTRIES = 10_000;
const APQ_MAX_CHARS = 16 * 1024 * 1024;

/** `maySendText`: whether a request may send full text (always, unless PERSISTED_ONLY; then with credentials). */
export function usePersistedOperationsPolicy(
  manifest: PersistedManifest,
  maySendText: (request: Request) => boolean,
): Plugin {
  const registered = new LRUCache<string, string>({
    max: APQ_MAX_ENTRIES,
    maxSize: APQ_MAX_CHARS,
    sizeCalculation: (text) => text.length + 64,
  });
  const policy = usePersistedOperations({
    // Clients send the bare hex digest (the APQ shape); codegen's manifest keys carry the algorithm. Registered
    // hashes serve only clients that may send text anyway: with PERSISTED_ONLY, the manifest is the whole list.
    getPersistedOperation: (hash, request) =>
      manifest.get(`sha256:${hash}`) ??
      manifest.get(hash) ??
      (maySendText(request) ? registered.get(hash) : undefined) ??
      null,
    allowArbitraryOperations: maySendText,
    customErrors: {
      // APQ's own message: clients retry with the text on it (urql's exchange compares the message, Apollo's link the
      // code), which registers the hash. The hash and what to do ride in the extensions.
      notFound: ({ params }) =>
        createGraphQLError(PERSISTED_QUERY_NOT_FOUND, {
          extensions: {
            code: 'PERSISTED_QUERY_NOT_FOUND',
            hash: hashText(persistedHash(params.extensions)),
            hint: 'no persisted operation has this hash: send the query text with it to register it, or run `npm run codegen` and deploy the manifest',
            http: { status: 404 },
          },
        }),
      persistedQueryOnly: {
        message: `this gateway accepts only persisted operations (extensions.persistedQuery.sha256Hash); full query text needs credentials (Authorization: Bearer or Basic, or ${TOKEN_HEADER})`,
        extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 403 } },
      },
      keyNotFound: {
        // Also what a request without any query gets, so it names both ways of sending one.
        message:
          'the request has no query: send the query text, or a persisted operation as extensions.persistedQuery.sha256Hash (with version 1)',
        extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', http: { status: 400 } },
      },
    },
  });
  const registration = useApqRegistration(registered, maySendText);
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(registration);
      addPlugin(policy);
    },
  };
}

/**
 * Query text sent with a hash (an APQ link's retry after PERSISTED_QUERY_NOT_FOUND) is checked against the hash,
 * then registered, so the client's next hash-only request finds it. Runs before the policy, which still refuses
 * the text of a client that may not send any.
 */
function useApqRegistration(registered: LRUCache<string, string>, maySendText: (request: Request) => boolean): Plugin {
  return {
    onParams({ params, request }) {
      const hash = persistedHash(params.extensions);
      // graphql-ws's and graphql-sse's clients must send a query string: an empty one with a hash is a hash alone.
      if (typeof params.query !== 'string' || params.query === '' || hash === undefined || !maySendText(request))
        return;
      if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
        throw createGraphQLError(
          `extensions.persistedQuery.sha256Hash must be a sha256 digest in 64 lowercase hex digits (got ${JSON.stringify(hash)})`,
          {
            extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', http: { status: 400 } },
          },
        );
      }
      const actual = createHash('sha256').update(params.query).digest('hex');
      if (actual !== hash) {
        throw createGraphQLError(
          `extensions.persistedQuery.sha256Hash ${hash} is not the sha256 of the query text (${actual}); nothing was run or registered`,
          {
            extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', http: { status: 400 } },
          },
        );
      }
      registered.set(hash, params.query);
    },
  };
}

/** The message of APQ's not-found answer, which clients match exactly. */
export const PERSISTED_QUERY_NOT_FOUND = 'PersistedQueryNotFound';

/** A sent hash as the answer names it: a string as it is, anything else as its JSON. */
export function hashText(hash: unknown): string | null {
  return typeof hash === 'string' ? hash : (JSON.stringify(hash) ?? null);
}

function persistedHash(extensions: Record<string, unknown> | undefined): unknown {
  const persisted = extensions?.['persistedQuery'] as { sha256Hash?: unknown } | undefined;
  return persisted?.sha256Hash;
}
