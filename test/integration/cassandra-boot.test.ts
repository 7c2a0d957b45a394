// Proves the integration harness hands tests a real Cassandra 5.0: DDL, a prepared write and read through cassandra-driver.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const node = inject('cassandra');
// Unique per run: KAIROGRAPH_CASSANDRA may point several runs at one long-lived node.
const keyspace = `kg_boot_${process.pid}_${Date.now()}`;

describe('real Cassandra from the integration globalSetup', () => {
  let client: cassandra.Client;

  beforeAll(async () => {
    client = new cassandra.Client({
      contactPoints: [node.contactPoint],
      localDataCenter: node.localDataCenter,
      // Driver 4.10 knows no v5: without this it opens with DSE_V2, is refused, and downgrades to v4 on a second connection.
      protocolOptions: { maxVersion: 4 },
    });
    await client.connect();
  });

  afterAll(async () => {
    await client?.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await client?.shutdown();
  });

  it('is exposed through env as well as inject', () => {
    expect(process.env.KAIROGRAPH_TEST_CASSANDRA).toBe(node.contactPoint);
    expect(node.contactPoint).toBe(`127.0.0.1:${node.port}`);
  });

  it('runs Cassandra 5.0', async () => {
    const row = (await client.execute('SELECT release_version FROM system.local')).first();
    expect(String(row.get('release_version'))).toMatch(/^5\.0\./);
  });

  it('settles on protocol v4 even without maxVersion, after one refused handshake', async () => {
    const logs: string[] = [];
    const bare = new cassandra.Client({ contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter });
    bare.on('log', (_level, _className, message) => logs.push(message));
    try {
      await bare.connect();
    } finally {
      await bare.shutdown();
    }
    expect(logs).toContain('Protocol 0x42 not supported, using 0x4');
    expect(logs.some((m) => m.startsWith('ControlConnection using protocol version 0x4'))).toBe(true);
  });

  it('creates a keyspace and table, writes and reads a row with prepared statements', async () => {
    await client.execute(
      `CREATE KEYSPACE ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
    await client.execute(
      `CREATE TABLE ${keyspace}.points (metric text, ts timestamp, value double, PRIMARY KEY (metric, ts))`,
    );
    const ts = new Date('2024-05-01T12:00:00.000Z');
    await client.execute(
      `INSERT INTO ${keyspace}.points (metric, ts, value) VALUES (?, ?, ?)`,
      ['cpu.load', ts, 0.75],
      { prepare: true },
    );
    const rows = (
      await client.execute(`SELECT ts, value FROM ${keyspace}.points WHERE metric = ?`, ['cpu.load'], { prepare: true })
    ).rows;
    expect(rows).toHaveLength(1);
    expect((rows[0]!.get('ts') as Date).toISOString()).toBe(ts.toISOString());
    expect(rows[0]!.get('value')).toBe(0.75);
  });
});
