/** The TCP listeners of collectors' line protocols: KairosDB's telnet and Graphite's plaintext (src/ingest/). */
import { setting } from './setting.js';
import { integer, nonEmpty } from './parsers.js';

export const INGEST_TCP_SETTINGS = [
  setting({
    env: 'TELNET_PORT',
    key: 'telnetPort',
    default: '0',
    meaning:
      "TCP port of KairosDB's telnet protocol (`put`, `putm`, `puts`, `version`; KairosDB uses 4242); `0`: off. It has no credentials: anyone who reaches the port writes into the primary source ([Ingest over TCP](ingest-tcp.md))",
    parse: (raw, env) => integer(raw, env, 0, 65535),
  }),
  setting({
    env: 'TELNET_HOST',
    key: 'telnetHost',
    default: '127.0.0.1',
    meaning: 'Address the telnet port listens on: loopback only unless set (`0.0.0.0` for every interface)',
    parse: (raw, env) => nonEmpty(raw, env),
  }),
  setting({
    env: 'GRAPHITE_PORT',
    key: 'graphitePort',
    default: '0',
    meaning:
      "TCP port of Graphite's plaintext protocol (`path value [timestamp]`, carbon uses 2003); `0`: off. No credentials, as for `TELNET_PORT`",
    parse: (raw, env) => integer(raw, env, 0, 65535),
  }),
  setting({
    env: 'GRAPHITE_HOST',
    key: 'graphiteHost',
    default: '127.0.0.1',
    meaning: 'Address the Graphite port listens on: loopback only unless set',
    parse: (raw, env) => nonEmpty(raw, env),
  }),
  setting({
    env: 'GRAPHITE_HOST_TAG_POSITION',
    key: 'graphiteHostTagPosition',
    default: '0',
    meaning:
      "`0`: a Graphite path is the metric name whole; `n`: the n-th part of the dotted path is the `host` tag and the other parts, joined by dots, the metric (kairos-carbon's HostTagParser is `2`: `servers.web1.cpu` → `servers.cpu`, host `web1`)",
    parse: (raw, env) => integer(raw, env, 0, 1000),
  }),
  setting({
    env: 'TCP_INGEST_MAX_CONNECTIONS',
    key: 'tcpIngestMaxConnections',
    default: '256',
    meaning: 'Most open connections of each TCP ingest port; one more is closed as it arrives',
    parse: (raw, env) => integer(raw, env, 1, 1_000_000),
  }),
  setting({
    env: 'TCP_INGEST_IDLE_TIMEOUT_MS',
    key: 'tcpIngestIdleTimeoutMs',
    default: '300000',
    meaning: 'A TCP ingest connection that sends nothing for this long is closed, its points written first',
    parse: (raw, env) => integer(raw, env, 100, 86_400_000),
  }),
  setting({
    env: 'TCP_INGEST_MAX_LINE_BYTES',
    key: 'tcpIngestMaxLineBytes',
    default: '4096',
    meaning:
      'Longest line of a TCP ingest protocol; a longer one closes its connection (the lines before it are written)',
    parse: (raw, env) => integer(raw, env, 64, 16_777_216),
  }),
  setting({
    env: 'TCP_INGEST_BATCH_POINTS',
    key: 'tcpIngestBatchPoints',
    default: '5000',
    meaning:
      "A connection's points are written once it holds this many (at most `MAX_WRITE_POINTS`); its socket is paused while they are",
    parse: (raw, env) => integer(raw, env, 1, 10_000_000),
  }),
  setting({
    env: 'TCP_INGEST_BATCH_MS',
    key: 'tcpIngestBatchMs',
    default: '200',
    meaning: "A connection's points are written at the latest this long after the first of them arrived",
    parse: (raw, env) => integer(raw, env, 0, 60_000),
  }),
] as const;
