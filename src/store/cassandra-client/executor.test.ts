/**
 * Which replicas an executor says hold a partition, on a stand-in client: the same for every key while the client
 * knows one node, else the nodes the token map names for the key, in one order whatever the map's.
 */
import type cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { Executor } from './executor.js';
import { Limiter } from './limiter.js';
import { resolveConnection } from './connection-options.js';

/** An executor over a client that knows `hosts` and answers getReplicas from `replicas`, recording what it was asked. */
function executorOver(
  hosts: string[],
  replicas: (key: Buffer) => string[] | null,
): { exec: Executor; asked: [string, string][] } {
  const asked: [string, string][] = [];
  const client = {
    hosts: { length: hosts.length },
    getReplicas: (keyspace: string, key: Buffer) => {
      asked.push([keyspace, key.toString('hex')]);
      return replicas(key)?.map((address) => ({ address }));
    },
  } as unknown as cassandra.Client;
  const options = resolveConnection({ contactPoints: ['127.0.0.1'], localDataCenter: 'dc1', keyspace: 'kg' });
  const exec = new Executor(client, new Limiter(1), { counts: {}, inFlight: 0 }, options, () => {}, {
    tables: [],
    lostError: () => new Error('unused') as never,
  });
  return { exec, asked };
}

describe('the replicas of a partition', () => {
  it('are the same for every key, unasked, while the client knows one node', () => {
    const { exec, asked } = executorOver(['127.0.0.1:9042'], () => ['127.0.0.1:9042']);
    expect(exec.replicasOf(Buffer.from('01', 'hex'))).toBe('');
    expect(exec.replicasOf(Buffer.from('02', 'hex'))).toBe('');
    expect(asked).toEqual([]);
  });

  it("are the token map's nodes for the key in the keyspace, sorted, and the same for all when it has none", () => {
    const { exec, asked } = executorOver(['127.0.0.1:9042', '127.0.0.2:9042', '127.0.0.3:9042'], (key) =>
      key[0] === 1 ? ['127.0.0.3:9042', '127.0.0.1:9042'] : key[0] === 2 ? ['127.0.0.1:9042', '127.0.0.3:9042'] : null,
    );
    expect(exec.replicasOf(Buffer.from('01', 'hex'))).toBe('127.0.0.1:9042,127.0.0.3:9042');
    expect(exec.replicasOf(Buffer.from('02', 'hex'))).toBe('127.0.0.1:9042,127.0.0.3:9042');
    expect(exec.replicasOf(Buffer.from('03', 'hex'))).toBe('');
    expect(asked).toEqual([
      ['kg', '01'],
      ['kg', '02'],
      ['kg', '03'],
    ]);
  });
});
