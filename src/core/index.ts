import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Store } from '../store/index.ts';
import { procedure } from '../store/async.ts';
import { checksService } from './checks.ts';
import { escalationService, type MemoryGate } from './escalation.ts';
import { channelsService, type ChannelTester } from './channels.ts';
import { EventBus } from './events.ts';
import { healthchecksService } from './healthchecks.ts';
import { maintenanceService } from './maintenance.ts';
import { reportsService } from './reports.ts';
import { badgesService } from './badges.ts';
import { incidentsService } from './incidents.ts';
import { statuspagesService } from './statuspages.ts';
import { monitorsService } from './monitors.ts';
import { monitorsBulkService } from './monitors-bulk.ts';
import { outagesService } from './outages.ts';
import { usersService } from './users.ts';
import { accountsService } from './accounts.ts';
import { consoleSsoService } from './console-sso.ts';
import { consoleViewService } from './console-view.ts';
import { pageAccessService } from './page-access.ts';
import { identityService } from './identity.ts';
import { subscriptionsService } from './subscriptions.ts';
import { subscribersService } from './subscribers.ts';
import { statusViewService } from './status-view.ts';
import { probesService } from './probes.ts';
import { resultsService } from './results.ts';
import { logOperatorEvents } from './operator-log.ts';
import { integrationsService } from './integrations.ts';
import { escalationPoliciesService } from './escalation-policies.ts';
import { onCallService } from './on-call.ts';
import { onCallFeedsService } from './on-call-feeds.ts';
import { peopleService } from './people.ts';
import { ConsolePager } from './console-pager.ts';
import { handoffNoticesService } from './on-call-handoffs.ts';
import { pageLinksService } from './page-links.ts';
import type { PersonSender } from './people-pages.ts';
import { auditLogService } from './audit-log.ts';
// Its procedure must be known to the store host (src/store-host.ts imports this module).
import './domain-expiry.ts';
import { tagsService } from './tags.ts';
import type { SecretBox } from '../lib/secret-box.ts';

/** Deletes expired probe batch ids and agents last seen before `cutoff` (epoch ms); returns rows deleted. */
const pruneProbes = procedure('prune.probes', (tx, a: { cutoff: number }) => tx.probes.pruneBefore(a.cutoff));
/** Drops one expired hour of raw check results (store/checks.ts); returns the rows it held. */
const dropResultsHour = procedure('prune.dropHour', (tx, a: { hour: number }) => tx.checks.dropHour(a.hour));
/** Deletes the check contexts no remaining hour uses. */
const pruneContexts = procedure('prune.contexts', (tx, _a: object) => tx.checks.pruneContexts());

/**
 * Wires the core's use cases over one store, clock and event bus. `secrets` seals and opens integration
 * secrets (store/secret-check.ts `openSecretBox`); without it integration writes answer 503.
 */
export function createCore(deps: { store: Store; clock: Clock; logger: Logger; config: Readonly<Config>; channelTester?: ChannelTester; secrets?: SecretBox; personSender?: PersonSender }) {
  const { store, clock, logger, config } = deps;
  const bus = new EventBus((err, event) => logger.error('event listener failed', { event, error: (err as Error).message }));
  // In-memory alert gates (the flood guard) register here; none holds alerts yet. Maintenance windows
  // hold sends from the store, inside each procedure (escalation.ts procedureGate).
  const gates: MemoryGate[] = [];
  const escalation = escalationService({
    config,
    gate: {
      holding: (uuid) => gates.some((g) => g.holding(uuid)),
      heldSend: (uuid) => gates.find((g) => g.holding(uuid))?.heldSend?.(uuid),
    },
  });
  const identity = identityService({ store, clock, config });
  const pageAccess = pageAccessService({ store, clock, config, identity });
  const subscriptions = subscriptionsService({ store, clock, config, access: pageAccess, bus });
  const checks = checksService({ store, clock, bus, logger, flushIntervalMs: config.storage.flush_interval_ms, escalation, gatesOpened: (o, now) => gates.forEach((g) => g.opened?.(o, now)), config });
  const probes = probesService({ store, clock, bus, logger, config });
  logOperatorEvents({ bus, logger, clock });
  const accounts = accountsService({ store, clock, config, logger });
  const reports = reportsService({ store, clock });
  const consolePager = new ConsolePager();
  const people = peopleService({ store, clock, logger, secrets: deps.secrets, sender: deps.personSender, consolePager });
  const outages = outagesService({ store, clock, bus, config, escalation });
  // An acknowledged or resolved outage pages nobody further (issue 34 point 1): its delayed steps are dropped.
  for (const event of ['outage.acknowledged', 'outage.resolved'] as const) {
    bus.on(event, ({ outage }) => void people.cancelPages(outage.uuid).catch((e: unknown) => logger.error(`cancelling the pages of ${outage.uuid} failed: ${(e as Error).message}`)));
  }
  return {
    bus,
    /** Open console streams by person: contact kind `console` (the console's /events route adds them). */
    consolePager,
    /** Configured channels (names, kinds) and test deliveries (console "send test alert", `pharos alert test`). */
    channels: channelsService({ store, secrets: deps.secrets, tester: deps.channelTester }),
    pageAccess,
    identity,
    subscriptions,
    statusView: statusViewService({ store, clock }),
    config,
    users: usersService({ store, clock }),
    accounts,
    /** Console single sign-on: the `console.sso` door, who it admits, invitations. */
    consoleSso: consoleSsoService({ store, clock, config, identity, logger }),
    consoleView: consoleViewService({ store, clock }),
    monitors: monitorsService({ store, clock, bus, config }),
    /** Bulk pause, resume, delete, attach policy (issue 33 point 5): one transaction per action. */
    monitorsBulk: monitorsBulkService({ store, clock, bus, config }),
    escalation,
    checks,
    probes,
    results: resultsService({ store, clock, bus, logger, checks, probes, config }),
    outages,
    healthchecks: healthchecksService({ store, clock, bus, config, escalation }),
    maintenance: maintenanceService({ store, clock, bus, publicUrl: config.public_url }),
    reports,
    /** Per-monitor public badges (issue 33 point 8): opt-in, uptime from the reports. */
    badges: badgesService({ store, clock, reports }),
    incidents: incidentsService({ store, clock, bus, publicUrl: config.public_url }),
    statuspages: statuspagesService({ store, clock, bus }),
    subscribers: subscribersService({ store, clock }),
    /**
     * Deletes raw check results past the retention window: every hour's table (store/checks.ts) that
     * ended at or before now − `storage.raw_retention_days` is dropped whole, each in its own short
     * transaction with a turn of the event loop in between; then the contexts no remaining hour uses.
     * Dropping a table frees its pages without deleting rows one by one (no index to rewrite, almost
     * nothing written to the WAL), so pruning costs the loop a few ms an hour instead of seconds of
     * row deletes (issue 14 point 14). A result is thus kept its retention rounded up to the hour.
     * @param signal stops between hours (shutdown)
     * @returns results deleted (plus expired probe batch ids)
     */
    async pruneResults(signal?: AbortSignal): Promise<number> {
      const cutoff = clock.now() - config.storage.raw_retention_days * 86_400_000;
      let total = await store.async.tx(pruneProbes, { cutoff: clock.now() - 86_400_000 });
      for (const hour of await store.async.checks.expiredHours(cutoff)) {
        if (signal?.aborted) return total;
        total += await store.async.tx(dropResultsHour, { hour });
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await store.async.tx(pruneContexts, {});
      return total;
    },
    /** Adds an in-memory rule that holds alerts back (an outage it is `holding` gets no alert). */
    addAlertGate(gate: MemoryGate): void {
      // Once per gate: a gate restarted when its instance regains leadership (issue 22) is not added twice.
      if (!gates.includes(gate)) gates.push(gate);
    },
    /** Integrations (issue 32): stored channels, their secrets sealed; "send test". */
    integrations: integrationsService({ store, clock, secrets: deps.secrets, tester: deps.channelTester }),
    /** Escalation policies (issue 32): stored, attached to monitors and healthchecks. */
    escalationPolicies: escalationPoliciesService({ store, clock, bus }),
    /** On-call schedules (issue 34 point 2): rotations, layers, overrides; who is on call at a time. */
    onCall: onCallService({ store, clock }),
    /** iCal feeds of on-call shifts at secret URLs (issue 34 point 2). */
    onCallFeeds: onCallFeedsService({ store, clock }),
    /** Hand-off notices "you are on call from 09:00" (issue 34 point 2); pharos.ts starts its timer on the leader. */
    onCallHandoffs: handoffNoticesService({ store, clock, logger, people }),
    /**
     * Team members, contact methods, notification rules and paging (issue 34 point 1):
     * `people.page(userUuid, page)` and `people.cancelPages(outageUuid)` (core/people-pages.ts).
     */
    people,
    /** Acknowledge / resolve from a page: signed single-use links and SMS replies (issue 34 point 4). */
    pageLinks: pageLinksService({ store, clock, logger, secrets: deps.secrets, baseUrl: escalation.settings.baseUrl, outages }),
    /** The audit log (issue 32 point 5): who changed what, read newest first. */
    auditLog: auditLogService({ store }),
    /** Tags with colours and groups (issue 33 point 5): `/v1/tags`, bulk "add tag", the monitor picker's search. */
    tags: tagsService({ store, clock, bus }),
  };
}

/** The core handed to the engine and the HTTP layer. */
export type Core = ReturnType<typeof createCore>;
export type { EventBus } from './events.ts';
