import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { AlertMessage } from '../domain/alert.ts';
import type { AlertRow, Store } from '../store/index.ts';
import { ChannelError, type Channel } from './channels/types.ts';

/** Delivery outcomes, for `pharos_alerts_total{channel,result}`. */
export interface AlertMetrics {
  alertDelivered(channel: string): void;
  alertRetry(channel: string): void;
  alertFailed(channel: string): void;
}

/** Finds the channel of an outbox row by its `channel` column (configured channels, subscribers). */
export interface ChannelLookup {
  get(name: string): Channel | undefined;
}

/** Outbox delivery settings (config `alerting`), in ms. */
export interface DispatcherOptions {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Rows claimed per pass. */
  batchSize?: number;
}

/**
 * Delivers the outbox (house rule 3: the dispatcher claims undelivered rows and tells permanent
 * from retryable errors). Rows are read `WHERE delivered_at IS NULL AND failed_at IS NULL AND
 * next_attempt_at <= now`; a success marks `delivered_at`; a retryable error sets the next attempt
 * `retryBase × 2^(attempts−1)` later (capped); a permanent error, an unknown channel or the last
 * attempt marks `failed_at`. Delivery is at-least-once: a crash between a send and its mark sends
 * that one message again after restart; a delivered row is never sent again.
 * Woken by `wake()` after alerts are queued; otherwise sleeps until the next retry is due.
 */
export class AlertDispatcher {
  readonly #inFlight = new Map<number, Promise<void>>();
  #timer: TimerHandle | null = null;
  #stopped = false;

  constructor(
    private readonly deps: { store: Store; clock: Clock; logger: Logger; channels: ChannelLookup; metrics: AlertMetrics; options: DispatcherOptions },
  ) {}

  /** Sends whatever is due now (pending rows survive restarts, so this also resumes after a crash). */
  start(): void {
    this.wake();
  }

  /** Claims and sends every due row not already in flight, then sleeps until the next due row. */
  wake(): void {
    if (this.#stopped) return;
    const { store, clock, options } = this.deps;
    this.#timer?.cancel();
    this.#timer = null;
    const now = clock.now();
    for (const row of store.alerts.due(now, (options.batchSize ?? 100) + this.#inFlight.size)) {
      if (this.#inFlight.has(row.id)) continue;
      const p = this.#deliver(row).finally(() => {
        this.#inFlight.delete(row.id);
        this.#arm();
      });
      this.#inFlight.set(row.id, p);
    }
    this.#arm();
  }

  /** Resolves when no delivery is in flight (tests drive a manual clock, then await this). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** Stops waking and waits for deliveries in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    await this.settled();
  }

  /** Sets the timer for the earliest pending row not in flight (one timer at a time). */
  #arm(): void {
    if (this.#stopped) return;
    const next = this.deps.store.alerts.nextDueAt();
    this.#timer?.cancel();
    this.#timer = null;
    if (next === null) return;
    const delay = Math.max(0, next - this.deps.clock.now());
    // A row that is due but in flight is re-checked when its delivery ends (#deliver's finally).
    if (delay === 0 && this.#inFlight.size > 0) return;
    this.#timer = this.deps.clock.setTimer(delay, () => this.wake());
  }

  async #deliver(row: AlertRow): Promise<void> {
    const { store, clock, logger, channels, metrics, options } = this.deps;
    const channel = channels.get(row.channel);
    if (!channel) {
      store.alerts.markFailed(row.id, clock.now(), `unknown channel "${row.channel}" (removed from config.yaml?)`);
      logger.error('alert failed', { alert: row.id, channel: row.channel, error: 'unknown channel' });
      metrics.alertFailed(row.channel);
      return;
    }
    try {
      await channel.send(JSON.parse(row.message) as AlertMessage, { deliveryId: row.deliveryId });
    } catch (e) {
      const permanent = e instanceof ChannelError && e.permanent;
      const error = (e as Error).message;
      const attempts = row.attempts + 1;
      if (permanent || attempts >= options.maxAttempts) {
        store.alerts.markFailed(row.id, clock.now(), error);
        logger.error('alert failed', { alert: row.id, channel: row.channel, attempts, permanent, error });
        metrics.alertFailed(channel.name);
      } else {
        const delay = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** (attempts - 1));
        store.alerts.markRetry(row.id, clock.now() + delay, error);
        logger.warn('alert delivery failed, will retry', { alert: row.id, channel: row.channel, attempts, retryInMs: delay, error });
        metrics.alertRetry(channel.name);
      }
      return;
    }
    store.alerts.markDelivered(row.id, clock.now());
    metrics.alertDelivered(channel.name);
  }
}
