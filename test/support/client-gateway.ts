/**
 * The gateway the real-client tests (Apollo, urql, graphql-ws, graphql-sse) talk to: an embedded store with a few
 * points, a reader's and a writer's token, anonymous callers refused, and live queries that run again on writes only
 * (a poll never sends an update a test did not cause). Also the persisted operations' ids as the manifest has them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocumentNode } from 'graphql';
import { expect } from 'vitest';
import { tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from './gateway.js';
import { removeTempDirs, tempDir } from './temp-dir.js';

export const READER = 'kg_reader-0123456789-0123456789-0123456789';
export const WRITER = 'kg_writer-0123456789-0123456789-0123456789';
export const WRONG = 'kg_wrong-0123456789-0123456789-0123456789';
/** Whole seconds, so a point's time is the same however a client reads it. */
export const NOW = Math.floor(Date.now() / 1000) * 1000;

export interface ClientGateway {
  readonly gw: TestGateway;
  /** The graphql-ws URL: ws://127.0.0.1:<port>/graphql. */
  readonly wsUrl: string;
  /** Writes `value` at NOW to `metric` {host=a} through the GraphQL mutation, as the writer. */
  write(metric: string, value: number): Promise<void>;
  close(): Promise<void>;
}

/** Each metric gets {host=a} with the value 1 a minute ago; `system.cpu.usage` also, for MetricCatalog's hosts. */
export async function startClientGateway(metrics: readonly string[]): Promise<ClientGateway> {
  const store = await EmbeddedStore.open({ path: tempDir() });
  await store.write({
    series: [...metrics, 'system.cpu.usage'].map((metric) => ({
      metric,
      tags: { host: 'a' },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: [NOW - 60_000],
      values: [1],
    })),
  });
  const credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      tokens: [
        { name: 'reader', hash: tokenHash(READER), scopes: ['read'] },
        { name: 'writer', hash: tokenHash(WRITER), scopes: ['read', 'write'] },
      ],
    }),
  );
  const gw = await startGateway(store, { CREDENTIALS_FILE: credentials, ANONYMOUS_SCOPES: '', LIVE_POLL_MS: '600000' });
  return {
    gw,
    wsUrl: `${gw.url.replace('http', 'ws')}/graphql`,
    async write(metric, value) {
      const written = await gw.graphql(
        `mutation { addPoints(series: [{ metric: "${metric}", tags: [{ name: "host", value: "a" }], points: [{ time: ${NOW}, value: ${value} }] }]) { points } }`,
        undefined,
        { authorization: `Bearer ${WRITER}` },
      );
      expect(written.body).toEqual({ data: { addPoints: { points: 1 } } });
    },
    async close() {
      await gw.gateway.webSockets.close();
      // A client's aborted stream may leave a connection the server would wait for until its timeout.
      gw.server.closeAllConnections();
      await gw.close();
      await store.close();
      removeTempDirs();
    },
  };
}

/**
 * A codegen document's id in the manifest, as clients send it (`extensions.persistedQuery.sha256Hash`): the sha256 of
 * codegen's normalised text, which is not the text a client library prints from the same document, so clients take
 * it from the document (`generateHash`) rather than hash their own print.
 */
export function manifestHash(document: DocumentNode): string {
  const hash = (document as { __meta__?: { hash?: string } }).__meta__?.hash;
  if (hash === undefined || !hash.startsWith('sha256:')) throw new Error('the document has no codegen sha256 hash');
  return hash.slice('sha256:'.length);
}

/** LiveSeries' SNAPSHOT of a fixture metric, and an UPDATE after `write(metric, value)`, without __typename. */
export const snapshotOfFixture = {
  kind: 'SNAPSHOT',
  changes: [{ series: { points: [{ epochMs: NOW - 60_000, value: 1 }] } }],
};
export const updateOf = (value: number) => ({
  kind: 'UPDATE',
  changes: [{ series: { points: [{ epochMs: NOW, value }] } }],
});
