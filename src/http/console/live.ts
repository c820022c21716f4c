import type { Core } from '../../core/index.ts';
import { OverviewCountsBox, OverviewLine } from '../../../views/console/overview.tsx';
import { OutageLine, OutageState } from '../../../views/console/outages.tsx';
import { HealthcheckState, MonitorState } from '../../../views/console/live-state.tsx';
import { liveBeatsHtml } from '../../../views/console/heartbeat-bars.tsx';
import type { LandedResult } from '../../domain/heartbeat.ts';

/**
 * One SSE message: event name and its data (a rendered row, or a uuid). `state` carries the live
 * parts of a monitor's or healthcheck's page (views/console/live-state.tsx), swapped in by id.
 */
export interface LiveMessage {
  event: 'row' | 'outage' | 'remove' | 'state' | 'beats' | 'counts';
  data: string;
}

/** A change waiting for its rows to be read: a monitor's row, an outage's line (and its monitor's row), a monitor or an outage gone. */
type Pending = { kind: 'monitor'; uuid: string } | { kind: 'outage'; outage: OutageLineRecord } | { kind: 'remove'; uuid: string } | { kind: 'beats'; results: LandedResult[] };
type OutageLineRecord = Parameters<typeof OutageLine>[0]['o'];

/**
 * Live updates of the console (issue 16): one listener per core event for all open streams. A
 * change renders the one row it touches, once, and the same string goes to every open stream, so
 * the work is per change, never per monitor or per viewer-times-monitor.
 *
 * Rows are read from the store asynchronously, by one run at a time (never overlapping): changes that
 * arrive meanwhile wait in `#pending` (one entry per row, in order of arrival; a row asked for twice
 * is read once) and the next run takes them all. A monitor's removal goes through the same queue, so
 * it is never overtaken by a read of its row begun before the delete.
 */
export class LiveHub {
  readonly #core: Core;
  readonly #now: () => number;
  readonly #onError: (e: unknown) => void;
  readonly #clients = new Set<(m: LiveMessage[]) => void>();
  #unsubscribe: Array<() => void> = [];
  readonly #pending = new Map<string, Pending>();
  #running: Promise<void> | null = null;
  /** The overview's counts by status may have changed: the run sends them once after its rows (issue 33 point 5: a paged overview cannot count its own rows). */
  #countsDue = false;

  /** @param onError a run that failed (logged by the caller; the run's changes are dropped) */
  constructor(core: Core, now: () => number, onError: (e: unknown) => void = () => undefined) {
    this.#core = core;
    this.#now = now;
    this.#onError = onError;
  }

  /** Adds a stream; the first one subscribes to the bus. @returns the function that removes it */
  add(send: (m: LiveMessage[]) => void): () => void {
    if (this.#clients.size === 0) this.#subscribe();
    this.#clients.add(send);
    return () => {
      this.#clients.delete(send);
      if (this.#clients.size === 0) {
        for (const u of this.#unsubscribe) u();
        this.#unsubscribe = [];
        this.#pending.clear();
        this.#countsDue = false;
      }
    };
  }

  get size(): number {
    return this.#clients.size;
  }

  /** Resolves once no run is in flight and nothing waits (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #broadcast(messages: LiveMessage[]): void {
    if (messages.length === 0) return;
    for (const send of this.#clients) send(messages);
  }

  /** Queues a change and starts a run unless one is in flight (that run's loop takes it). */
  #queue(key: string, p: Pending): void {
    this.#pending.delete(key); // re-inserted last: after a removal queued meanwhile
    this.#pending.set(key, p);
    if (p.kind !== 'beats') this.#countsDue = true;
    this.#run();
  }

  /** Starts a run unless one is in flight. */
  #run(): void {
    if (!this.#running) {
      this.#running = this.#drain()
        .catch((e: unknown) => this.#onError(e))
        .finally(() => {
          this.#running = null;
        });
    }
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0 || this.#countsDue) {
      const batch = [...this.#pending.values()];
      this.#pending.clear();
      for (const p of batch) this.#broadcast(await this.#messagesOf(p));
      if (this.#pending.size === 0 && this.#countsDue) {
        this.#countsDue = false;
        const counts = await safe(() => this.#core.consoleView.overviewCounts());
        if (counts) this.#broadcast([{ event: 'counts', data: String(OverviewCountsBox({ counts })) }]);
      }
    }
  }

  async #messagesOf(p: Pending): Promise<LiveMessage[]> {
    if (p.kind === 'remove') return [{ event: 'remove', data: p.uuid }];
    if (p.kind === 'beats') {
      // Heartbeat bars (issue 33 point 2): every result of the batch in one message, one store read.
      const list = await safe(() => this.#core.consoleView.landedBeats(p.results));
      return list && list.length > 0 ? [{ event: 'beats', data: liveBeatsHtml(list) }] : [];
    }
    if (p.kind === 'monitor') return this.#monitorRow(p.uuid);
    const o = (await safe(() => this.#core.outages.get(p.outage.uuid))) ?? p.outage;
    const now = this.#now();
    const msgs: LiveMessage[] = [
      { event: 'outage', data: String(OutageLine({ o, now })) },
      { event: 'state', data: String(OutageState({ o, now })) },
    ];
    if (o.monitor) msgs.push(...(await this.#monitorRow(o.monitor.uuid)));
    return msgs;
  }

  async #monitorRow(uuid: string): Promise<LiveMessage[]> {
    const m = await safe(() => this.#core.monitors.get(uuid));
    if (!m) return [];
    const [row, outages, beats] = await Promise.all([safe(() => this.#core.consoleView.monitorRow(m)), safe(() => this.#core.consoleView.monitorOutages(m, 1)), safe(() => this.#core.consoleView.heartbeats([m.uuid]))]);
    if (!row) return [];
    row.beats = beats?.get(m.uuid) ?? [];
    const now = this.#now();
    const current = outages?.find((o) => o.endAt === null) ?? null;
    return [
      { event: 'row', data: String(OverviewLine({ row, now, colors: true })) },
      { event: 'state', data: String(MonitorState({ m, status: row.status, lastAt: row.lastAt, current, now })) },
    ];
  }

  #subscribe(): void {
    const { bus } = this.#core;
    const outage = (p: { outage: OutageLineRecord }) => this.#queue(`o:${p.outage.uuid}`, { kind: 'outage', outage: p.outage });
    const monitor = (uuid: string) => this.#queue(`m:${uuid}`, { kind: 'monitor', uuid });
    this.#unsubscribe = [
      bus.on('monitor.created', ({ monitor: m }) => monitor(m.uuid)),
      bus.on('monitor.updated', ({ monitor: m }) => monitor(m.uuid)),
      // A bulk "add tag", a tag renamed, recoloured or deleted (issue 33 point 5): the rows' chips.
      bus.on('monitor.tagged', ({ uuids }) => uuids.forEach(monitor)),
      bus.on('monitor.deleted', ({ uuid }) => {
        this.#pending.delete(`m:${uuid}`);
        this.#queue(`r:${uuid}`, { kind: 'remove', uuid });
      }),
      // A healthcheck's row is drawn from the event itself: nothing to read.
      bus.on('healthcheck.changed', ({ healthcheck }) => {
        const row = this.#core.consoleView.healthcheckRow(healthcheck);
        const now = this.#now();
        this.#broadcast([
          { event: 'row', data: String(OverviewLine({ row, now })) },
          { event: 'state', data: String(HealthcheckState({ h: healthcheck, status: row.status, now })) },
        ]);
        this.#countsDue = true;
        this.#run();
      }),
      bus.on('healthcheck.deleted', ({ uuid }) => {
        this.#broadcast([{ event: 'remove', data: uuid }]);
        this.#countsDue = true;
        this.#run();
      }),
      // Results committed: their bars, batched until the next run (a run takes every batch that waited).
      bus.on('checks.stored', ({ results }) => {
        const waiting = this.#pending.get('beats');
        // A loop, not push(...results): a storm's batch can be longer than the arguments a call takes.
        if (waiting?.kind === 'beats') for (const r of results) waiting.results.push(r);
        else this.#queue('beats', { kind: 'beats', results: [...results] });
      }),
      // A window changed, deleted, or one of its occurrences started or ended (MaintenanceGate): its monitors' rows say "in maintenance" or not.
      bus.on('maintenance.changed', ({ window }) => window.monitors.forEach(monitor)),
      bus.on('maintenance.deleted', ({ window }) => window.monitors.forEach(monitor)),
      bus.on('outage.opened', outage),
      bus.on('outage.resolved', outage),
      bus.on('outage.acknowledged', outage),
      bus.on('outage.unacknowledged', outage),
      bus.on('outage.escalated', outage),
      // A deleted outage's line goes (after any read of it queued before the delete).
      bus.on('outage.deleted', ({ uuid }) => {
        this.#pending.delete(`o:${uuid}`);
        this.#queue(`r:${uuid}`, { kind: 'remove', uuid });
      }),
    ];
  }
}

/** What `fn` resolves to, or undefined when it fails (a row deleted since: nothing to show). */
async function safe<T>(fn: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch {
    return undefined;
  }
}
