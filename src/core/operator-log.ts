import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { formatDuration } from '../domain/duration.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { EventBus } from './events.ts';

/** What an outage is about, in words: `monitor "API"`, `healthcheck "nightly backup"`, or `reported outage`. */
export function outageSubjectName(o: OutageRecord): string {
  if (o.monitor) return `monitor "${o.monitor.name}"`;
  if (o.healthcheck) return `healthcheck "${o.healthcheck.name}"`;
  return 'reported outage';
}

/**
 * The operator's log of outages (issue #14 point 17): one human line per outage opened, resolved,
 * acknowledged, unacknowledged or escalated by hand, with ids in the fields. Scheduled escalation
 * steps are logged by the stepper, alert deliveries by the dispatcher, agents by the probes service.
 * Never logs secrets: names, uuids and the outage's cause only (a healthcheck's ping URL is not in
 * an {@link OutageRecord}).
 * @returns unsubscribes
 */
export function logOperatorEvents(deps: { bus: EventBus; logger: Logger; clock: Clock }): () => void {
  const { bus, logger, clock } = deps;
  // A change another instance made is logged there (issue 22): one line per cluster, not per instance.
  const on: EventBus['on'] = (event, fn) => bus.on(event, (p) => void (bus.replaying || fn(p)));
  const ids = (o: OutageRecord) => ({ outage: o.uuid, incident: o.incidentNumber, ...(o.monitor ? { monitor: o.monitor.uuid } : {}), ...(o.healthcheck ? { healthcheck: o.healthcheck.uuid } : {}) });
  const off = [
    on('outage.opened', ({ outage: o }) => logger.warn(`outage #${o.incidentNumber} opened: ${outageSubjectName(o)} is down (${o.description})`, ids(o))),
    on('outage.resolved', ({ outage: o }) =>
      logger.info(`outage #${o.incidentNumber} resolved: ${outageSubjectName(o)} is up again after ${formatDuration(((o.endAt ?? clock.now()) - o.startAt) / 1000)}`, ids(o)),
    ),
    on('outage.acknowledged', ({ outage: o }) =>
      logger.info(`outage #${o.incidentNumber} acknowledged${o.acknowledgedByUser ? ` by ${o.acknowledgedByUser.name}` : ''}: ${outageSubjectName(o)}; escalation stopped`, ids(o)),
    ),
    on('outage.unacknowledged', ({ outage: o }) => logger.info(`outage #${o.incidentNumber} unacknowledged: ${outageSubjectName(o)}; escalation resumes`, ids(o))),
    on('outage.escalated', ({ outage: o }) => logger.warn(`outage #${o.incidentNumber} escalated by hand to step ${o.alertedSteps}: ${outageSubjectName(o)}`, ids(o))),
    on('probe.results', ({ agent, region, count }) => logger.debug(`agent results: ${count} from ${agent} (${region})`, { agent, region, results: count })),
  ];
  return () => off.forEach((u) => u());
}
