/**
 * `/metrics` for the sources whose store keeps a schema of its own (KairosDB's keyspace on Cassandra): repairs under
 * way, their attempts and failures, and the keyspaces and tables lost and created again, one series per source (and
 * kind: keyspace or table), so the labels stay as few as the configured sources.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SchemaRepairStatus } from '../model/health.js';
import type { Sources } from '../sources/sources.js';

export function registerSchemaMetrics(registry: Registry, sources: Sources): void {
  const watched = sources.all.filter((source) => source.capabilities.schemaRepair !== undefined);
  if (watched.length === 0) return;
  const each = (visit: (source: string, status: SchemaRepairStatus) => void) => {
    for (const source of watched) visit(source.name, source.capabilities.schemaRepair!.status());
  };
  const counter = (name: string, help: string, value: (status: SchemaRepairStatus) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['source'],
      registers: [registry],
      collect() {
        this.reset();
        each((source, status) => this.inc({ source }, value(status)));
      },
    });
  counter(
    'kairograph_schema_repair_attempts_total',
    "Attempts to repair a source's schema after it was found gone (a failing one is retried with backoff)",
    (s) => s.attempts,
  );
  counter('kairograph_schema_repair_failures_total', "Failed attempts to repair a source's schema", (s) => s.failures);
  new Gauge({
    name: 'kairograph_schema_repairing',
    help: "1 while a source's schema is being repaired (its requests answer 503 STORE_UNAVAILABLE), else 0",
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.reset();
      each((source, status) => this.set({ source }, status.repairing ? 1 : 0));
    },
  });
  new Counter({
    name: 'kairograph_schema_recreated_total',
    help: 'Keyspaces and tables lost and created again (by the gateway or another client): data written to them before may be missing',
    labelNames: ['source', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      each((source, status) => {
        this.inc({ source, kind: 'keyspace' }, status.recreatedKeyspaces);
        this.inc({ source, kind: 'table' }, status.recreatedTables);
      });
    },
  });
  new Gauge({
    name: 'kairograph_schema_last_recreation_timestamp_seconds',
    help: "When a source's keyspace or a table was last found lost and created again (absent before the first time)",
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.reset();
      each((source, status) => {
        if (status.lastRecreationMs !== undefined) this.set({ source }, status.lastRecreationMs / 1000);
      });
    },
  });
}
