import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { noticeKey } from '../domain/alert.ts';
import { escalationRestart, type EscalationSettings, type MemoryGate } from '../core/escalation.ts';
import type { Core } from '../core/index.ts';
import { raiseOperatorNotice, resolveOperatorNotice, type OperatorNotice } from '../core/operator-notice.ts';
import type { OutageRecord } from '../domain/outage.ts';
import { plural } from '../domain/plural.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';

/**
 * The end of a flood, in one transaction: the escalations of the outages still ongoing
 * (`restarted`) start over at `releaseAt`. (The notices go through core/operator-notice.ts.)
 */
const restartHeld = procedure('floodGuard.restart', (tx: Store, a: { restarted: string[]; releaseAt: number; esc: EscalationSettings }): void => {
  for (const id of a.restarted) escalationRestart(tx, a.esc, id, a.releaseAt);
});

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
export class FloodGuard implements MemoryGate {
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
  /** The last write of the guard (a notice, a release), in flight or done. */
  #release: Promise<void> = Promise.resolve();

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

  /** Stops following outage events and waits for a write in flight. */
  async stop(): Promise<void> {
    for (const u of this.#unsubscribe) u();
    this.#unsubscribe.length = 0;
    await this.settled();
  }

  /** True while the probe is considered offline. */
  get active(): boolean {
    return this.#active !== null;
  }

  /** Counts a new monitor outage; may start a flood. Runs on the main thread as the outage opens (before or inside its transaction); stores nothing itself. */
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
    const notice = this.#notice(`probe ${region} lost connectivity: ${plural(uuids.length, 'monitor')} failing`, `${plural(uuids.length, 'monitor outage')} opened within ${window_seconds} s. Pharos treats this as its own connectivity loss and holds their alerts until the probe recovers.`);
    this.deps.metrics.floodActive(true);
    this.deps.logger.warn('flood guard: probe connectivity loss, alerts held', { region, failing: uuids.length });
    // Queued in a transaction of its own (this hook may run before the outage's transaction, on the
    // main thread), behind any release in flight; the dispatcher is woken once it is stored.
    this.#write(
      async () => {
        await raiseOperatorNotice(this.deps, notice, now);
      },
      'flood guard: queueing the connectivity-loss notice failed',
      () => this.deps.changed([]),
    );
  }

  /** Whether the sends of outage `uuid` are held now: those of the burst while it lasts (no side effect; what a procedure is told). */
  holding(uuid: string): boolean {
    return this.#active !== null && this.#active.held.has(uuid);
  }

  /** A procedure held a send of an outage of the burst. */
  heldSend(): void {
    this.deps.metrics.alertsHeld();
  }

  /** Resolves when no write of the guard is in flight (tests). */
  async settled(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.#release) {
      seen = this.#release;
      await seen;
    }
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
    const { clock, core, config, logger } = this.deps;
    const now = clock.now();
    const releaseAt = now + config.alerting.flood_guard.window_seconds * 1000;
    const still = [...a.ongoing];
    const restarted = still.filter((id) => !this.#silent.has(id));
    for (const id of still) this.#silent.delete(id);
    this.#active = null;
    const notice = this.#notice(
      `probe ${config.probe.region} regained connectivity: ${a.held.size - still.length} monitors recovered`,
      still.length > 0 ? `${plural(still.length, 'monitor')} ${still.length === 1 ? 'is' : 'are'} still failing; they alert if still failing in ${config.alerting.flood_guard.window_seconds} s.` : 'Every monitor of the burst recovered; their held alerts are dropped.',
    );
    const esc = core.escalation.settings;
    this.#write(
      async () => {
        if (restarted.length > 0) await this.deps.store.async.tx(restartHeld, { restarted, releaseAt, esc });
        // The escalations restarted stay restarted when the notice cannot be queued: that is logged, and the release goes on.
        await resolveOperatorNotice(this.deps, notice, now).catch((e: unknown) => logger.error('flood guard: queueing the connectivity-back notice failed', { error: (e as Error).message }));
      },
      'flood guard: restarting the held escalations failed',
      () => {
      this.deps.metrics.floodActive(false);
      logger.info('flood guard: probe connectivity back', { stillFailing: still.length });
      this.deps.changed(restarted);
      },
    );
  }

  /**
   * Runs `write` (the guard's store writes) behind the one in flight (one at a time: the store
   * answers asynchronously, issue 31; stop() waits for it), then `done`; a failure is logged as `failed`.
   */
  #write(write: () => Promise<void>, failed: string, done: () => void): void {
    this.#release = this.#release.then(async () => {
      try {
        await write();
      } catch (e) {
        this.deps.logger.error(failed, { error: (e as Error).message });
        return;
      }
      done();
    });
  }

  /** The operator notice about `flood:<region>` (core/operator-notice.ts raises it at the start of the flood and resolves it at its end). */
  #notice(title: string, text: string): OperatorNotice {
    return { key: noticeKey.flood(this.deps.config.probe.region), title, text };
  }
}
