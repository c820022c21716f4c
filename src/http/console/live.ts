import type { Core } from '../../core/index.ts';
import { OverviewLine } from '../../../views/console/overview.tsx';
import { OutageLine } from '../../../views/console/outages.tsx';

/** One SSE message: event name and its data (a rendered row, or a uuid). */
export interface LiveMessage {
  event: 'row' | 'outage' | 'remove';
  data: string;
}

/**
 * Live updates of the console (issue 16): one listener per core event for all open streams. A
 * change renders the one row it touches, once, and the same string goes to every open stream, so
 * the work is per change, never per monitor or per viewer-times-monitor.
 */
export class LiveHub {
  readonly #core: Core;
  readonly #now: () => number;
  readonly #clients = new Set<(m: LiveMessage[]) => void>();
  #unsubscribe: Array<() => void> = [];

  constructor(core: Core, now: () => number) {
    this.#core = core;
    this.#now = now;
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
      }
    };
  }

  get size(): number {
    return this.#clients.size;
  }

  #broadcast(messages: LiveMessage[]): void {
    for (const send of this.#clients) send(messages);
  }

  #monitorRow(uuid: string): LiveMessage[] {
    const m = safe(() => this.#core.monitors.get(uuid));
    return m ? [{ event: 'row', data: String(OverviewLine({ row: this.#core.consoleView.monitorRow(m), now: this.#now() })) }] : [];
  }

  #subscribe(): void {
    const { bus } = this.#core;
    const outage = (p: { outage: Parameters<typeof OutageLine>[0]['o'] }) => {
      const o = safe(() => this.#core.outages.get(p.outage.uuid)) ?? p.outage;
      const msgs: LiveMessage[] = [{ event: 'outage', data: String(OutageLine({ o, now: this.#now() })) }];
      if (o.monitor) msgs.push(...this.#monitorRow(o.monitor.uuid));
      this.#broadcast(msgs);
    };
    this.#unsubscribe = [
      bus.on('monitor.created', ({ monitor }) => this.#broadcast(this.#monitorRow(monitor.uuid))),
      bus.on('monitor.updated', ({ monitor }) => this.#broadcast(this.#monitorRow(monitor.uuid))),
      bus.on('monitor.deleted', ({ uuid }) => this.#broadcast([{ event: 'remove', data: uuid }])),
      bus.on('healthcheck.changed', ({ healthcheck }) => this.#broadcast([{ event: 'row', data: String(OverviewLine({ row: this.#core.consoleView.healthcheckRow(healthcheck), now: this.#now() })) }])),
      bus.on('healthcheck.deleted', ({ uuid }) => this.#broadcast([{ event: 'remove', data: uuid }])),
      bus.on('outage.opened', outage),
      bus.on('outage.resolved', outage),
      bus.on('outage.acknowledged', outage),
      bus.on('outage.unacknowledged', outage),
      bus.on('outage.escalated', outage),
    ];
  }
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
