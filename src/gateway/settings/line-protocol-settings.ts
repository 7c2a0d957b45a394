/** How InfluxDB's line protocol maps onto KairosDB's metrics (docs/ingest.md). */
import { setting } from './setting.js';
import { ConfigError } from '../../model/errors.js';
import { nonEmpty } from './parsers.js';

export const LINE_PROTOCOL_SETTINGS = [
  setting({
    env: 'INFLUX_METRIC_SEPARATOR',
    key: 'influxMetricSeparator',
    default: '.',
    meaning:
      'What joins a line-protocol measurement and field into a metric name (`cpu` and `usage_idle` → `cpu.usage_idle`); see [ingest](ingest.md)',
    parse: (raw, env) => {
      const value = nonEmpty(raw, env);
      if (value.includes('\u0000')) throw new ConfigError(`${env} must not contain the character U+0000`);
      return value;
    },
  }),
] as const;
