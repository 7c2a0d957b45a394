/** The process itself: its log, its traces and the demo data. */
import { setting } from './setting.js';
import { oneOf, boolean } from './parsers.js';

export const PROCESS_SETTINGS = [
  setting({
    env: 'LOG_LEVEL',
    key: 'logLevel',
    default: 'info',
    meaning: 'fatal, error, warn, info, debug, trace or silent',
    parse: (raw, env) => oneOf(raw, env, ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
  }),
  setting({
    env: 'LOG_FORMAT',
    key: 'logFormat',
    default: 'auto',
    meaning:
      '`pretty`: one readable line per event; `json`: one JSON object per line (pino); `auto`: pretty when standard output is a terminal, JSON otherwise',
    parse: (raw, env) => oneOf(raw, env, ['auto', 'json', 'pretty'] as const),
  }),
  setting({
    env: 'OTEL_TRACES_EXPORTER',
    key: 'tracesExporter',
    default: 'none',
    meaning:
      '`otlp`: send OpenTelemetry traces (a span per request, GraphQL operation, query stage and index read) over OTLP/HTTP to the endpoint the standard `OTEL_EXPORTER_OTLP_*` variables name; `console`: print them; `none`: no tracing ([Operations](operations.md#traces))',
    parse: (raw, env) => oneOf(raw, env, ['none', 'otlp', 'console'] as const),
  }),
  setting({
    env: 'SEED_DEMO',
    key: 'seedDemo',
    default: 'true',
    meaning:
      'Seed the demo dataset when the embedded store has no metrics, fill the gap since the last run at start and add a point to each demo series every 10 s while running (`false`: none of this; never into Cassandra)',
    parse: (raw, env) => boolean(raw, env),
  }),
] as const;
