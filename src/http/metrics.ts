import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from 'prom-client';
import type { EngineMetrics } from '../engine/wheel.ts';

/** A value, or a Promise of it. */
type MaybePromise<T> = T | Promise<T>;

/**
 * The process's Prometheus metrics, in a registry of its own (no global state, house rule 5):
 * - `pharos_checks_total{protocol,result}` checks done, result `up`/`down`;
 * - `pharos_check_duration_seconds{protocol}` probe wall time;
 * - `pharos_scheduler_lag_seconds` due time → probe start (summary with p50/p90/p99 over 60 s,
 *   and a histogram for aggregation across scrapes);
 * - `pharos_http_phase_seconds{phase}` HTTP timing phases (connect per new connection; ttfb, body per check);
 * - `pharos_checks_descriptor_exhausted_total` checks that met EMFILE/ENFILE (retried, not reported);
 * - `pharos_unconfirmed_failures_total` failures the other regions (or the re-checks) did not confirm;
 * - `pharos_agent_results_total{region}` check results received from remote agents;
 * - `pharos_monitors{status}` active monitors by status (`up`, `down`);
 * - `pharos_result_flush_failures_total` failed group commits of check results (kept and retried),
 *   `pharos_results_dropped_total` results dropped past the in-memory cap while writes failed;
 * - `pharos_alerts_total{channel,result}` outbox deliveries (`delivered`, `retry`, `failed`) and
 *   `pharos_alerts_pending` rows waiting; `pharos_flood_guard_active` and `pharos_alerts_held_total`;
 * - Node's default process metrics (CPU, RSS, event-loop lag) with prefix `pharos_`.
 * @param statusCounts read at scrape time (may answer asynchronously: the store's reads do not block the loop)
 * @param alertsPending outbox rows waiting, read at scrape time (may answer asynchronously)
 * @param resultWrites failed result flushes and dropped results so far, read at scrape time
 */
export function createMetrics(
  statusCounts: () => MaybePromise<{ up: number; down: number }>,
  alertsPending: () => MaybePromise<number> = () => 0,
  resultWrites: () => { failures: number; dropped: number } = () => ({ failures: 0, dropped: 0 }),
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'pharos_' });
  // Counted by the checks service; read at scrape time.
  new Counter({
    name: 'pharos_result_flush_failures_total',
    help: 'Group commits of check results that failed (kept in memory and retried)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(resultWrites().failures);
    },
  });
  new Counter({
    name: 'pharos_results_dropped_total',
    help: 'Check results dropped because too many piled up in memory while writes kept failing',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(resultWrites().dropped);
    },
  });
  const checks = new Counter({ name: 'pharos_checks_total', help: 'Checks done, by protocol and result', labelNames: ['protocol', 'result'] as const, registers: [registry] });
  const duration = new Histogram({
    name: 'pharos_check_duration_seconds',
    help: 'Probe wall time per check',
    labelNames: ['protocol'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const lagSummary = new Summary({
    name: 'pharos_scheduler_lag_seconds',
    help: 'Delay between a check being due and its probe starting (sliding 60 s window)',
    percentiles: [0.5, 0.9, 0.99],
    maxAgeSeconds: 60,
    ageBuckets: 6,
    registers: [registry],
  });
  // Fine buckets at the low end: the benches compute lag quantiles over a whole window from it.
  const lagHistogram = new Histogram({
    name: 'pharos_scheduler_lag_hist_seconds',
    help: 'Delay between a check being due and its probe starting',
    buckets: [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const phases = new Histogram({
    name: 'pharos_http_phase_seconds',
    help: 'HTTP check phases: connect (per new connection, TCP + TLS), ttfb and body (per check)',
    labelNames: ['phase'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const descriptors = new Counter({ name: 'pharos_checks_descriptor_exhausted_total', help: 'Checks that met EMFILE/ENFILE (Pharos out of file descriptors): retried, never reported as the target down', registers: [registry] });
  const unconfirmed = new Counter({ name: 'pharos_unconfirmed_failures_total', help: 'Failures the other regions or the re-checks did not confirm (no outage opened)', registers: [registry] });
  const agentResults = new Counter({ name: 'pharos_agent_results_total', help: 'Check results received from remote agents, by region', labelNames: ['region'] as const, registers: [registry] });
  new Gauge({
    name: 'pharos_monitors',
    help: 'Active monitors by status',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const c = await statusCounts();
      this.set({ status: 'up' }, c.up);
      this.set({ status: 'down' }, c.down);
    },
  });

  const alertsTotal = new Counter({ name: 'pharos_alerts_total', help: 'Alert deliveries by channel and result (delivered, retry, failed)', labelNames: ['channel', 'result'] as const, registers: [registry] });
  new Gauge({
    name: 'pharos_alerts_pending',
    help: 'Alerts in the outbox waiting for delivery or a retry',
    registers: [registry],
    async collect() {
      this.set(await alertsPending());
    },
  });
  const floodActive = new Gauge({ name: 'pharos_flood_guard_active', help: '1 while the flood guard holds alerts (probe connectivity loss)', registers: [registry] });
  const held = new Counter({ name: 'pharos_alerts_held_total', help: 'Escalation sends held by the flood guard', registers: [registry] });
  /** Outbox delivery outcomes and flood-guard state (structurally AlertMetrics and FloodGuardMetrics). */
  const alerts = {
    floodActive: (active: boolean) => floodActive.set(active ? 1 : 0),
    alertsHeld: () => held.inc(),
    alertDelivered: (channel: string) => alertsTotal.inc({ channel, result: 'delivered' }),
    alertRetry: (channel: string) => alertsTotal.inc({ channel, result: 'retry' }),
    alertFailed: (channel: string) => alertsTotal.inc({ channel, result: 'failed' }),
  };

  const engine: EngineMetrics = {
    checkDone(protocol, ok, durationMs) {
      checks.inc({ protocol, result: ok ? 'up' : 'down' });
      duration.observe({ protocol }, durationMs / 1000);
    },
    schedulerLag(lagMs) {
      lagSummary.observe(lagMs / 1000);
      lagHistogram.observe(lagMs / 1000);
    },
    unconfirmedFailure() {
      unconfirmed.inc();
    },
    descriptorsExhausted() {
      descriptors.inc();
    },
    httpPhase(phase: 'connect' | 'ttfb' | 'body', ms: number) {
      phases.observe({ phase }, ms / 1000);
    },
  };
  /** Results stored from a remote agent's batch. */
  const refusedResults = new Counter({ name: 'pharos_agent_results_refused_total', help: 'Check results refused from remote agents: not_assigned (a monitor the agent does not check now) or time (at outside [now - 24 h, now + 2 min])', labelNames: ['reason'] as const, registers: [registry] });
  const probes = {
    agentResults: (region: string, count: number) => agentResults.inc({ region }, count),
    refusedResults: (reason: string, count: number) => refusedResults.inc({ reason }, count),
  };
  return { registry, engine, alerts, probes, text: () => registry.metrics(), contentType: registry.contentType };
}
