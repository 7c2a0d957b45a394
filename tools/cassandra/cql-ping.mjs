// Readiness probe for run.sh: one real CQL query through the project's own driver; prints "release=<v> dc=<dc>", exits 1 if CQL does not answer.
// maxVersion 4: driver 4.10 opens with DSE_V2, Cassandra 5.0 refuses it, and the driver retries on v4; asking v4 first saves that round trip.
import cassandra from 'cassandra-driver';

const [host, port] = (process.argv[2] ?? '').split(':');
const { AllowListPolicy, DCAwareRoundRobinPolicy } = cassandra.policies.loadBalancing;
const client = new cassandra.Client({
  contactPoints: [`${host}:${port}`],
  localDataCenter: 'datacenter1',
  // In a cluster the driver finds the other nodes too; the answer must come from the node being checked.
  policies: { loadBalancing: new AllowListPolicy(new DCAwareRoundRobinPolicy('datacenter1'), [`${host}:${port}`]) },
  protocolOptions: { maxVersion: 4 },
  socketOptions: { connectTimeout: 2000, readTimeout: 3000 },
  pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1 } },
});
try {
  await client.connect();
  const row = (await client.execute('SELECT release_version, data_center FROM system.local')).first();
  console.log(`release=${row.release_version} dc=${row.data_center}`);
} catch (err) {
  console.error(`cql-ping ${host}:${port}: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await client.shutdown();
}
