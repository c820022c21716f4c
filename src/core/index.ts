import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Store } from '../store/index.ts';
import { checksService } from './checks.ts';
import { EventBus } from './events.ts';
import { healthchecksService } from './healthchecks.ts';
import { monitorsService } from './monitors.ts';
import { outagesService } from './outages.ts';
import { usersService } from './users.ts';

/** Wires the core's use cases over one store, clock and event bus. */
export function createCore(deps: { store: Store; clock: Clock; logger: Logger; config: Readonly<Config> }) {
  const { store, clock, logger, config } = deps;
  const bus = new EventBus((err, event) => logger.error('event listener failed', { event, error: (err as Error).message }));
  return {
    bus,
    config,
    users: usersService({ store, clock }),
    monitors: monitorsService({ store, clock, bus, config }),
    checks: checksService({ store, clock, bus, logger, flushIntervalMs: config.storage.flush_interval_ms }),
    outages: outagesService({ store }),
    healthchecks: healthchecksService({ store, clock, bus, config }),
    /** Deletes raw check results older than the retention window; returns rows deleted. */
    pruneResults(): number {
      const cutoff = clock.now() - config.storage.raw_retention_days * 86_400_000;
      let total = 0;
      // Small chunks, each its own transaction, so the writer and the API never wait long on pruning.
      while (true) {
        const n = store.tx(() => store.checks.pruneResultsBefore(cutoff));
        total += n;
        if (n === 0) return total;
      }
    },
    /** Policies from config.yaml (CONTRACT.md "Outages"). */
    escalationPolicies: () => config.escalation_policies,
  };
}

/** The core handed to the engine and the HTTP layer. */
export type Core = ReturnType<typeof createCore>;
export type { EventBus } from './events.ts';
