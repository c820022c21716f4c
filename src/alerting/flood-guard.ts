import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { noticeKey, type AlertMessage } from '../domain/alert.ts';
import type { AlertGate } from '../core/escalation.ts';
import type { Core } from '../core/index.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';

/** Flood-guard observations for `/metrics`. */
export interface FloodGuardMetrics {
  floodActive(active: boolean): void;
  alertsHeld(): void;
}

/**
 * The flood guard (one network failure must not become thousands of alerts). When at least
 * `min_monitors` monitor outages — and at least `failing_share` of the scheduled monitors — open
 * within `window_seconds`, Pharos treats it as its own probe losing connectivity:
 * - one notice goes to the configured channels (`probe london lost connectivity: 312 monitors failing`),
 *   keyed `flood:<region>` (PagerDuty and Opsgenie open one alert under that key);
 * - the alerts of the outages opened in that burst, and of monitor outages opened while it lasts,
 *   are held (their escalation steps are recorded as held and queue nothing);
 * - when fewer than the threshold of those outages are still ongoing, the flood ends: a second
 *   notice goes out (resolving `flood:<region>` at PagerDuty and Opsgenie), and outages of the
 *   burst that are still ongoing start their escalation over `window_seconds` later (if they have
 *   not recovered by then, they are real); those that recover before never alert.
 * Outages opened before the threshold was reached may already have alerted (at most threshold − 1).
 * The state lives in memory: after a restart, held outages escalate normally (and a flood notice
 * still open at PagerDuty or Opsgenie stays open until someone resolves it there).
 */
export class FloodGuard implements AlertGate {
  /**
   * Monitor outages opened within the window while no flood is on: uuid → opening time (epoch ms),
   * oldest first (a Map keeps insertion order), so expiring and forgetting one are O(1) each, not a
   * copy of the whole list per outage (a storm opens thousands).
   */
  #recent = new Map<string, number>();
  /**
   * Outages of `#recent` or of the flood that have no escalation policy: they never alert, so the
   * release has nothing to restart for them (one read and write each, for nothing, in a storm).
   */
  #silent = new Set<string>();
  #active: { since: number; held: Set<string>; ongoing: Set<string> } | null = null;
  readonly #unsubscribe: Array<() => void> = [];

  constructor(
    private readonly deps: {
      core: Core;
      store: Store;
      clock: Clock;
      logger: Logger;
      config: Pick<Config, 'alerting' | 'channels' | 'probe'>;
      /** Monitors scheduled on this probe now. */
      monitorCount: () => number;
      metrics: FloodGuardMetrics;
      /** Called after the guard queued notices or restarted escalations (wakes dispatcher and stepper). */
      changed: (restarted: string[]) => void;
    },
  ) {}

  /** Registers as an alert gate and follows outage resolutions. */
  start(): void {
    if (!this.deps.config.alerting.flood_guard.enabled) return;
    this.deps.core.addAlertGate(this);
    this.#unsubscribe.push(
      this.deps.core.bus.on('outage.resolved', ({ outage }) => this.#resolved(outage.uuid)),
      this.deps.core.bus.on('outage.deleted', ({ uuid }) => this.#resolved(uuid)),
    );
  }

  stop(): void {
    for (const u of this.#unsubscribe) u();
  }

  /** True while the probe is considered offline. */
  get active(): boolean {
    return this.#active !== null;
  }

  /** Counts a new monitor outage; may start a flood. Runs inside the outage's opening transaction. */
  opened(o: OutageRecord, now: number): void {
    if (o.kind !== 'monitor') return;
    if (o.escalationPolicyUuid === null) this.#silent.add(o.uuid);
    if (this.#active) {
      this.#active.held.add(o.uuid);
      this.#active.ongoing.add(o.uuid);
      return;
    }
    const { window_seconds } = this.deps.config.alerting.flood_guard;
    const cutoff = now - window_seconds * 1000;
    for (const [uuid, at] of this.#recent) {
      if (at > cutoff) break;
      this.#recent.delete(uuid);
      this.#silent.delete(uuid);
    }
    this.#recent.set(o.uuid, now);
    if (this.#recent.size < this.#threshold()) return;
    const uuids = [...this.#recent.keys()];
    this.#active = { since: now, held: new Set(uuids), ongoing: new Set(uuids) };
    this.#recent = new Map();
    const region = this.deps.config.probe.region;
    this.#notice(now, false, `probe ${region} lost connectivity: ${uuids.length} monitors failing`, `${uuids.length} monitor outages opened within ${window_seconds} s. Pharos treats this as its own connectivity loss and holds their alerts until the probe recovers.`);
    this.deps.metrics.floodActive(true);
    this.deps.logger.warn('flood guard: probe connectivity loss, alerts held', { region, failing: uuids.length });
    queueMicrotask(() => this.deps.changed([]));
  }

  /** Holds sends of outages of the burst while it lasts. */
  holds(o: OutageRecord): boolean {
    const held = this.#active !== null && this.#active.held.has(o.uuid);
    if (held) this.deps.metrics.alertsHeld();
    return held;
  }

  #threshold(): number {
    const { min_monitors, failing_share } = this.deps.config.alerting.flood_guard;
    return Math.max(min_monitors, Math.ceil(failing_share * this.deps.monitorCount()));
  }

  #resolved(uuid: string): void {
    this.#recent.delete(uuid);
    this.#silent.delete(uuid);
    const a = this.#active;
    if (!a || !a.ongoing.delete(uuid) || a.ongoing.size >= this.#threshold()) return;
    const { store, clock, core, config } = this.deps;
    const now = clock.now();
    const releaseAt = now + config.alerting.flood_guard.window_seconds * 1000;
    const still = [...a.ongoing];
    const restarted = still.filter((id) => !this.#silent.has(id));
    for (const id of still) this.#silent.delete(id);
    this.#active = null;
    store.tx(() => {
      for (const id of restarted) core.escalation.restart(id, releaseAt);
      this.#notice(
        now,
        true,
        `probe ${config.probe.region} regained connectivity: ${a.held.size - still.length} monitors recovered`,
        still.length > 0 ? `${still.length} monitors are still failing; they alert if still failing in ${config.alerting.flood_guard.window_seconds} s.` : 'Every monitor of the burst recovered; their held alerts are dropped.',
      );
    });
    this.deps.metrics.floodActive(false);
    this.deps.logger.info('flood guard: probe connectivity back', { stillFailing: still.length });
    this.deps.changed(restarted);
  }

  /**
   * Queues an operator notice to the configured channels (inside the caller's transaction), about
   * `flood:<region>`: the start of the flood (`resolve` false) or its end (true).
   */
  #notice(now: number, resolve: boolean, title: string, text: string): void {
    const { config, store } = this.deps;
    const named = config.alerting.flood_guard.channels;
    const channels = named.length > 0 ? named : config.channels.map((c) => c.name);
    const subject = { key: noticeKey.flood(config.probe.region), resolve };
    const message: AlertMessage = { kind: 'notice', title, text, outage: null, escalation: null, link: null, createdAt: new Date(now).toISOString(), subject };
    for (const channel of channels) store.alerts.insert({ outageUuid: null, channel, kind: 'notice', step: null, message: JSON.stringify(message), createdAt: now, dueAt: now });
  }
}
