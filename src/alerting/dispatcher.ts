import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { AlertMessage } from '../domain/alert.ts';
import type { AlertRow } from '../domain/alert.ts';
import { LeaseLostError, type LeaderFence } from '../domain/cluster.ts';
import { AppError } from '../lib/errors.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { randomBase62 } from '../domain/ids.ts';
import { ChannelError, type Channel } from './channels/types.ts';

/** Delivery outcomes, for `pharos_alerts_total{channel,result}`. */
export interface AlertMetrics {
  alertDelivered(channel: string): void;
  alertRetry(channel: string): void;
  alertFailed(channel: string): void;
}

/**
 * An outbox row in words for the log (never its message's text: titles may carry secrets). A
 * notice about something that ends is named by its key (`notice cert:mon_…:7 (resolve)`).
 */
const what = (row: AlertRow, message?: AlertMessage) => {
  if (row.kind !== 'notice') return `${row.kind === 'recovery' ? 'recovery' : row.step && row.step > 1 ? `escalation (send ${row.step})` : 'alert'}${row.outageUuid ? ` for outage ${row.outageUuid}` : ''}`;
  return message?.subject ? `notice ${message.subject.key}${message.subject.resolve ? ' (resolve)' : ''}` : 'notice';
};

/**
 * How long a claimed outbox row stays reserved for the dispatcher that claimed it, ms: longer than any
 * channel's send (their timeouts are shorter), short enough that a dispatcher that died mid-send (a
 * killed leader) has its row sent by the next leader a minute later.
 */
export const CLAIM_LEASE_MS = 60_000;

/** Delay before retrying after the store refused an outbox read or write, ms. */
const STORE_RETRY_MS = 5000;

/**
 * Finds the channel of an outbox row by its `channel` column (configured channels, subscribers): at
 * once for a configured channel, after a store read for a subscriber's.
 */
export interface ChannelLookup {
  get(name: string): Channel | undefined | Promise<Channel | undefined>;
}

/**
 * Claims due outbox rows in one transaction: with several instances (`epoch` not null) the lease's
 * fencing number is checked first (FOR SHARE), so a leader whose lease passed on claims nothing.
 */
const claimDue = procedure('alerts.claimDue', (tx: Store, a: { now: number; limit: number; leaseUntil: number; epoch: number | null }): AlertRow[] => {
  if (a.epoch !== null) tx.cluster.assertFence(a.epoch);
  return tx.alerts.claimDue(a.now, a.limit, a.leaseUntil);
});

/**
 * True when `e` is the refusal of a write whose fencing number is stale ({@link LeaseLostError}; from
 * the store host thread it arrives as an AppError with its code).
 */
export function isLeaseLost(e: unknown): boolean {
  return e instanceof LeaseLostError || (e instanceof AppError && e.code === 'cluster.lease_lost');
}

/** Outbox delivery settings (config `alerting`), in ms. */
export interface DispatcherOptions {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Deliveries in flight at most (default 100): a burst of 10,000 outages must not open 10,000 sockets at once. */
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
  /**
   * Outcomes sent but not yet recorded because the store refused the write (disk full, I/O error):
   * retried before anything else, and their rows are not sent again meanwhile.
   */
  readonly #unrecorded = new Map<number, () => Promise<void>>();
  #timer: TimerHandle | null = null;
  #stopped = false;
  /** The store is refusing writes: logged once when it starts and once when it ends. */
  #storeFailing = false;
  /** The round of claims in flight (one at a time), or null. */
  #round: Promise<void> | null = null;
  /** A wake arrived during the round in flight: another round follows it. */
  #again = false;
  /** Outcome writes in flight (awaited by {@link settled} and {@link stop}). */
  readonly #recording = new Set<Promise<boolean>>();

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      channels: ChannelLookup;
      metrics: AlertMetrics;
      options: DispatcherOptions;
      /**
       * The leader's lease (issue 31, several instances): checked before each round of claims, and the
       * claims carry its epoch, so a leader whose lease passed to another instance claims nothing more.
       * Outcomes of sends already made are recorded unfenced: they are true, and dropping them would
       * have the new leader send those messages again.
       */
      fence?: LeaderFence;
    },
  ) {}

  /** Sends whatever is due now (pending rows survive restarts, so this also resumes after a crash). */
  start(): void {
    this.wake();
  }

  /**
   * Starts a round: records outcomes a failed write left pending, then claims and sends every due
   * row not already in flight, then sleeps until the next due row. One round at a time (the store is
   * asynchronous, issue 31): a wake during a round has another round follow it. A store error here
   * (or in a delivery's bookkeeping) is logged and retried after {@link STORE_RETRY_MS}; it never
   * rejects a promise nobody awaits (that would end the process).
   */
  wake(): void {
    if (this.#stopped) return;
    if (this.#round) {
      this.#again = true;
      return;
    }
    const round = (async () => {
      do {
        this.#again = false;
        await this.#claimRound();
      } while (this.#again && !this.#stopped);
    })()
      .catch((e: unknown) => this.#storeFailed(e))
      .finally(() => {
        if (this.#round === round) this.#round = null;
      });
    this.#round = round;
  }

  async #claimRound(): Promise<void> {
    const { store, clock, logger, options, fence } = this.deps;
    if (fence && !fence.valid()) return;
    this.#timer?.cancel();
    this.#timer = null;
    try {
      for (const [id, record] of this.#unrecorded) {
        await record();
        this.#unrecorded.delete(id);
      }
      if (this.#stopped) return;
      const now = clock.now();
      // Claimed rows are not due to anyone until the lease ends (several instances, issue 22: never
      // sent twice by two dispatchers); fill only the free slots. A row still in flight when its lease
      // ends is claimed again and skipped here.
      const limit = options.batchSize ?? 100;
      const free = limit - this.#inFlight.size;
      const rows = free <= 0 ? [] : await store.async.tx(claimDue, { now, limit: free, leaseUntil: now + CLAIM_LEASE_MS, epoch: fence?.epoch() ?? null });
      for (const row of rows) {
        if (this.#inFlight.has(row.id) || this.#unrecorded.has(row.id)) continue;
        const p = this.#deliver(row)
          .catch((e: unknown) => logger.error('alert delivery failed unexpectedly', { alert: row.id, channel: row.channel, error: (e as Error).message }))
          .finally(() => {
            this.#inFlight.delete(row.id);
            // The freed slot takes the next due row at once (wake re-arms the timer when none is due).
            this.wake();
          });
        this.#inFlight.set(row.id, p);
      }
      if (this.#storeFailing && this.#unrecorded.size === 0) {
        this.#storeFailing = false;
        logger.info('alert outbox: the database accepts writes again');
      }
      await this.#arm();
    } catch (e) {
      this.#storeFailed(e);
    }
  }

  /** Logs a store error and tries again later. */
  #storeFailed(e: unknown): void {
    if (isLeaseLost(e)) {
      // Another instance leads and sends the outbox now: this dispatcher is being stopped.
      this.deps.fence?.lost((e as { epoch?: number }).epoch ?? this.deps.fence.epoch() ?? 0);
      return;
    }
    if (!this.#storeFailing) this.deps.logger.error('alert outbox: the database refused a read or write; retrying every few seconds', { error: (e as Error).message });
    this.#storeFailing = true;
    if (this.#stopped) return;
    this.#timer?.cancel();
    this.#timer = this.deps.clock.setTimer(STORE_RETRY_MS, () => this.wake());
  }

  /** Runs a delivery's bookkeeping write; when the store refuses it, keeps it for the next round. */
  async #record(rowId: number, write: () => Promise<void>): Promise<boolean> {
    const p = write().then(
      () => true,
      (e: unknown) => {
        this.#unrecorded.set(rowId, write);
        this.#storeFailed(e);
        return false;
      },
    );
    this.#recording.add(p);
    try {
      return await p;
    } finally {
      this.#recording.delete(p);
    }
  }

  /** Resolves when no round and no delivery is in flight (tests drive a manual clock, then await this). */
  async settled(): Promise<void> {
    while (this.#round || this.#inFlight.size > 0 || this.#recording.size > 0) {
      await Promise.allSettled([this.#round, ...this.#inFlight.values(), ...this.#recording]);
    }
  }

  /** Stops waking and waits for the round and the deliveries in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    await this.settled();
    // A last try at outcomes the store refused: an unrecorded delivery is sent again after a restart.
    for (const [id, record] of this.#unrecorded) {
      try {
        await record();
        this.#unrecorded.delete(id);
      } catch (e) {
        this.deps.logger.error('alert outbox: stopping with deliveries not recorded; they will be sent again after the restart', { count: this.#unrecorded.size, error: (e as Error).message });
        break;
      }
    }
  }

  /** Sets the timer for the earliest pending row not in flight (one timer at a time). */
  async #arm(): Promise<void> {
    if (this.#stopped) return;
    if (this.#unrecorded.size > 0) return; // a retry timer is set (#storeFailed)
    let next: number | null;
    try {
      next = await this.deps.store.async.alerts.nextDueAt();
    } catch (e) {
      this.#storeFailed(e);
      return;
    }
    if (this.#stopped) return;
    this.#timer?.cancel();
    this.#timer = null;
    if (next === null) return;
    const delay = Math.max(0, next - this.deps.clock.now());
    // A row that is due but in flight is re-checked when a delivery ends (wake in #deliver's finally).
    if (delay === 0 && this.#inFlight.size > 0) return;
    this.#timer = this.deps.clock.setTimer(delay, () => this.wake());
  }

  async #deliver(row: AlertRow): Promise<void> {
    const { store, clock, logger, channels, metrics, options } = this.deps;
    const channel = await channels.get(row.channel);
    if (!channel) {
      const at = clock.now();
      await this.#record(row.id, () => store.async.alerts.markFailed(row.id, at, `unknown channel "${row.channel}" (removed from config.yaml?)`));
      logger.error(`alert failed: ${what(row)} via "${row.channel}": the channel is not configured (removed from config.yaml?)`, { alert: row.id, channel: row.channel, outage: row.outageUuid });
      metrics.alertFailed(row.channel);
      return;
    }
    let message: AlertMessage | undefined;
    try {
      message = JSON.parse(row.message) as AlertMessage;
      await channel.send(message, { deliveryId: row.deliveryId });
    } catch (e) {
      const permanent = e instanceof ChannelError && e.permanent;
      const error = (e as Error).message;
      const attempts = row.attempts + 1;
      if (permanent || attempts >= options.maxAttempts) {
        const at = clock.now();
        await this.#record(row.id, () => store.async.alerts.markFailed(row.id, at, error));
        logger.error(`alert failed: ${what(row, message)} via "${channel.name}" after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${error}`, { alert: row.id, channel: row.channel, outage: row.outageUuid, attempts, permanent });
        metrics.alertFailed(channel.name);
      } else {
        const delay = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** (attempts - 1));
        const at = clock.now() + delay;
        await this.#record(row.id, () => store.async.alerts.markRetry(row.id, at, error));
        logger.warn(`alert delivery failed: ${what(row, message)} via "${channel.name}", retrying in ${Math.round(delay / 1000)} s: ${error}`, { alert: row.id, channel: row.channel, outage: row.outageUuid, attempts, retryInMs: delay });
        metrics.alertRetry(channel.name);
      }
      return;
    }
    const at = clock.now();
    await this.#record(row.id, () => store.async.alerts.markDelivered(row.id, at));
    metrics.alertDelivered(channel.name);
    logger.info(`alert delivered: ${what(row, message)} via "${channel.name}"`, { alert: row.id, channel: row.channel, outage: row.outageUuid, attempts: row.attempts + 1 });
  }
}

/**
 * Sends `message` now to each channel named, outside the outbox (issue 31 point 5: the leader keeping
 * its checks through a database outage, which has no outbox to write to). One try per channel, one log
 * line per send; never retried here: the flush that stores the state change later queues the outbox rows
 * as usual, and marks delivered only those of the channels returned.
 * @returns the channels that took the message
 */
export async function sendDirect(deps: { channels: ChannelLookup; logger: Logger; metrics: AlertMetrics }, names: readonly string[], message: AlertMessage): Promise<string[]> {
  const sent: string[] = [];
  await Promise.all(
    names.map(async (name) => {
      const channel = await deps.channels.get(name);
      if (!channel) return deps.logger.error(`alert not sent during the database outage: the channel "${name}" is not configured`, { channel: name, outage: message.outage?.uuid });
      try {
        await channel.send(message, { deliveryId: `dlv_${randomBase62(22)}` });
        sent.push(name);
        deps.metrics.alertDelivered(channel.name);
        deps.logger.info(`alert delivered during the database outage: ${message.kind} for outage ${message.outage?.uuid ?? ''} via "${name}" (straight from the leader, not the outbox)`, { channel: name, outage: message.outage?.uuid });
      } catch (e) {
        deps.logger.warn(`alert not delivered during the database outage: ${message.kind} via "${name}": ${(e as Error).message}; the outbox sends it when the database is back`, { channel: name, outage: message.outage?.uuid });
      }
    }),
  );
  return sent;
}
