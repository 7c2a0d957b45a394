/**
 * `npm run demo:table -- <host:port>`: docs/user-tables.md's "Try it in a minute". On the Cassandra at host:port
 * (`npm run cassandra` prints it), creates `iot.sensor_readings` exactly as that page shows it, fills the last 7 days
 * for three sensors (a reading a minute, with plain CQL, as a user's own writer would), writes the page's sources file
 * to `sources.sensors.json` and prints how to start the gateway on it.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import cassandra from 'cassandra-driver';

const contactPoint = process.argv[2] ?? '';
if (!/^[^\s:]+:\d{1,5}$/.test(contactPoint)) {
  process.stderr.write(
    `usage: npm run demo:table -- <host:port> (the port npm run cassandra printed; got ${JSON.stringify(contactPoint)})\n`,
  );
  process.exit(2);
}
const DAY = 86_400_000;
const MINUTE = 60_000;
const SENSORS = ['s-1', 's-2', 's-3'];
/** The mapping of docs/user-tables.md, which the walk-through starts the gateway with. */
const SOURCES = {
  sources: [
    {
      name: 'sensors',
      layout: 'table',
      keyspace: 'iot',
      table: 'sensor_readings',
      time: 'reading_time',
      bucket: { column: 'day', kind: 'date-text' },
      tags: ['sensor_id'],
      metrics: { 'sensor.value': 'value' },
    },
  ],
};

const client = new cassandra.Client({
  contactPoints: [contactPoint],
  localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
  protocolOptions: { maxVersion: 4 },
  socketOptions: { readTimeout: 60_000 },
});
try {
  await client.connect();
  await client.execute(
    "CREATE KEYSPACE IF NOT EXISTS iot WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}",
  );
  await client.execute(`CREATE TABLE IF NOT EXISTS iot.sensor_readings (
    sensor_id text, day text, reading_time timestamp, value double,
    PRIMARY KEY ((sensor_id, day), reading_time)
  ) WITH CLUSTERING ORDER BY (reading_time DESC)
    AND default_time_to_live = 2592000
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}`);
  const end = Math.floor(Date.now() / MINUTE) * MINUTE;
  const insert = 'INSERT INTO iot.sensor_readings (sensor_id, day, reading_time, value) VALUES (?, ?, ?, ?)';
  let rows = 0;
  for (const [s, sensor] of SENSORS.entries()) {
    for (let t = end - 7 * DAY; t <= end; t += 500 * MINUTE) {
      const batch = [];
      for (let u = t; u < Math.min(t + 500 * MINUTE, end + 1); u += MINUTE) {
        // A daily temperature curve per sensor, a few degrees apart.
        const value = Math.round((20 + 2 * s + 3 * Math.sin((2 * Math.PI * (u % DAY)) / DAY)) * 100) / 100;
        batch.push(
          client.execute(insert, [sensor, new Date(u).toISOString().slice(0, 10), new Date(u), value], {
            prepare: true,
          }),
        );
      }
      await Promise.all(batch);
      rows += batch.length;
    }
  }
  const file = resolve('sources.sensors.json');
  writeFileSync(file, `${JSON.stringify(SOURCES, null, 2)}\n`);
  process.stdout.write(
    `iot.sensor_readings holds ${rows} readings of ${SENSORS.length} sensors over the last 7 days.\n`,
  );
  process.stdout.write(
    `Start the gateway on it:\n  SOURCES_FILE=${file} CASSANDRA_CONTACT_POINTS=${contactPoint} npm start\n`,
  );
} finally {
  await client.shutdown();
}
