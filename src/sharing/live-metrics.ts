/**
 * Live subscriptions on the gateway's /metrics: how many are served, how many distinct computations serve them, and
 * the polls and runs those computations made.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { LiveQueries } from './live-queries.js';

export function registerLiveMetrics(registry: Registry, live: LiveQueries): void {
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  const counter = (name: string, help: string, value: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  gauge('kairograph_live_subscriptions', 'Live subscriptions (liveSeries) served', () => live.subscriptions);
  gauge(
    'kairograph_live_queries',
    'Distinct live computations serving them (identical subscriptions share one)',
    () => live.queries,
  );
  counter(
    'kairograph_live_polls_total',
    'Polls of the live computations (every LIVE_POLL_MS while any runs)',
    () => live.polls,
  );
  counter(
    'kairograph_live_runs_total',
    'Runs of live computations, by polls and by writes through the gateway',
    () => live.runs,
  );
}
