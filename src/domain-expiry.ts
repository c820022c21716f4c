import type { Config } from './config/schema.ts';
import type { Core } from './core/index.ts';
import { recordDomainExpiry } from './core/domain-expiry.ts';
import { probeTarget } from './domain/monitor.ts';
import type { Clock, TimerHandle } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import type { Store } from './store/index.ts';
import { RdapClient } from './engine/rdap.ts';

/** How often monitors are swept (each host is asked at most daily: the client's cache). */
const SWEEP_EVERY_MS = 3_600_000;

/** The running domain-expiry sweep. */
export interface DomainExpiryWatch {
  /** One sweep now (one at a time: while one runs, it is returned). @returns rows queued */
  runNow(): Promise<number>;
  /** Stops the timer and waits for a sweep in flight. */
  close(): Promise<void>;
}

/**
 * Domain-expiry warnings (issue 36): every hour, on the leader only, each monitor with
 * `domain_expiry_days` (not paused) has its host's registrable domain looked up over RDAP
 * (engine/rdap.ts; once a day per host), and the reading is recorded with its notices in one
 * transaction (core/domain-expiry.ts). The lookups run here, outside any transaction; a lookup that
 * fails is logged at debug and tried again at a later sweep (an unknown TLD, an IP address or a
 * `.lan` name never has an RDAP record). The first sweep runs a minute after start.
 */
export function startDomainExpiry(deps: { store: Store; core: Pick<Core, 'bus'>; clock: Clock; logger: Logger; config: Readonly<Config>; isLeader: () => boolean }): DomainExpiryWatch {
  const { store, clock, logger, config } = deps;
  const rdap = new RdapClient({ bootstrapUrl: config.probe.rdap_bootstrap_url, now: () => clock.now(), userAgent: config.probe.user_agent });
  let timer: TimerHandle | null = null;
  let inFlight: Promise<number> | null = null;
  let closed = false;

  const sweep = async (): Promise<number> => {
    let queued = 0;
    for (const m of await store.async.monitors.list()) {
      const days = m.settings.domain_expiry_days as number[] | null | undefined;
      if (closed || !deps.isLeader()) break;
      if (!days || m.paused) continue;
      let host: string;
      try {
        host = probeTarget(m).host;
      } catch (e) {
        logger.debug(`domain expiry: ${m.uuid} has no host (${(e as Error).message})`);
        continue;
      }
      const reading = await rdap.expiry(host);
      if ('error' in reading) {
        logger.debug(`domain expiry: ${m.uuid} ${host}: ${reading.error}`);
        continue;
      }
      queued += await store.async.tx(recordDomainExpiry, { monitorUuid: m.uuid, domain: reading.domain, expiresAt: reading.expiresAt, now: clock.now(), publicUrl: config.public_url });
    }
    if (queued > 0) deps.core.bus.emit('notices.queued', { count: queued });
    return queued;
  };

  const runNow = (): Promise<number> => {
    inFlight ??= sweep()
      .catch((e: unknown) => {
        logger.warn(`domain expiry sweep failed: ${(e as Error).message}`);
        return 0;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
  const schedule = (delayMs: number) => {
    if (closed) return;
    timer = clock.setTimer(delayMs, () => {
      timer = null;
      void runNow().then(() => schedule(SWEEP_EVERY_MS));
    });
  };
  schedule(60_000);
  return {
    runNow,
    async close() {
      closed = true;
      timer?.cancel();
      await inFlight;
    },
  };
}
