import type { Config } from '../config/schema.ts';
import { escalationOfSend, renderAlert } from '../domain/alert.ts';
import { followsAcknowledgements } from '../domain/channels/index.ts';
import { sendChannels, sendDueAt } from '../domain/escalation.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import { outageSubject } from '../domain/outage.ts';

/**
 * A rule that holds alerts back (maintenance windows, the flood guard). Both hooks run inside the
 * outage transactions: `opened` sees every new outage before its first send is decided; `holds`
 * is asked before each send, and a held send is recorded on the timeline but queues nothing.
 */
export interface AlertGate {
  opened?(outage: OutageRecord, now: number): void;
  holds(outage: OutageRecord, now: number): boolean;
}

type Policy = Config['escalation_policies'][number];

/**
 * Escalation bookkeeping, called **inside** the transactions that open, escalate and resolve
 * outages (house rule 3): the escalation schedule, the outbox rows and the timeline entry commit
 * together with the state change, so a crash can neither lose nor invent an alert. The alerting
 * stepper only sets timers for `next_alert_at` and calls {@link sendDue} when one fires.
 */
export function escalationService(deps: { store: Store; config: Pick<Config, 'escalation_policies' | 'public_url' | 'channels'>; gate: AlertGate }) {
  const { store, config } = deps;
  const policyOf = (uuid: string | null): Policy | undefined => (uuid ? config.escalation_policies.find((p) => p.uuid === uuid) : undefined);
  const base = config.public_url.replace(/\/+$/, '');
  // Links go to the console (issue 16's URLs), which a person can open in a browser. A
  // healthcheck's `uuid` is its ping token (a secret: anyone who sees it in a chat could send
  // success pings), so alerts name it by its public uuid (`hc_…`) and console page only.
  const link = (o: OutageRecord) => `${base}/outages/${o.uuid}`;
  const source = (o: OutageRecord) => ({
    ...o,
    monitor: o.healthcheck
      ? { uuid: o.healthcheck.publicUuid, name: o.healthcheck.name, url: `${base}/healthchecks/${o.healthcheck.publicUuid}`, protocol: 'healthcheck' }
      : outageSubject(o, () => ''),
  });
  const tracking = new Set(config.channels.filter((c) => followsAcknowledgements(c.type)).map((c) => c.name));

  /** Queues send number `sent` of the policy for `o` (unless gated) and moves the schedule on. */
  const send = (o: OutageRecord, policy: Policy, now: number, type: 'alerted' | 'escalated', userUuid: string | null, note: string | null) => {
    const sent = o.alertedSteps;
    const channels = sendChannels(policy, sent);
    const held = deps.gate.holds(o, now);
    if (!held) {
      const escalation = escalationOfSend({ uuid: policy.uuid, name: policy.name, totalSteps: policy.steps.length }, sent);
      const message = JSON.stringify(renderAlert('alert', source(o), escalation, link(o), now));
      for (const channel of channels) store.alerts.insert({ outageUuid: o.uuid, channel, kind: 'alert', step: sent + 1, message, createdAt: now, dueAt: now });
    }
    const start = o.escalationStartAt ?? now;
    const next = o.acknowledgedAt === null ? sendDueAt(policy, start, sent + 1) : null;
    store.outages.setEscalation(o.uuid, start, next, sent + 1);
    const what = `step ${Math.min(sent + 1, policy.steps.length)}${sent >= policy.steps.length ? ' (repeat)' : ''} to ${channels.join(', ') || 'no channels'}${held ? ' held: alerts are suppressed' : ''}`;
    store.outages.addEvent(o.uuid, { at: now, type, userUuid, message: note ? `${note} (${what})` : what });
  };

  return {
    policyOf,
    /**
     * A new outage (in its opening transaction): timeline entry, and the escalation schedule —
     * step 1 at now + `alertsWaitMinutes` + its `after_minutes`, queued in this same transaction
     * when that is now. No policy or `alertsWaitMinutes` −1 → never alerted.
     * @returns true when the outage's row changed (escalation schedule set): re-read it for its event
     */
    opened(o: OutageRecord, alertsWaitMinutes: number, now: number): boolean {
      store.outages.addEvent(o.uuid, { at: now, type: 'opened', userUuid: o.reportedBy, message: o.description });
      deps.gate.opened?.(o, now);
      const policy = policyOf(o.escalationPolicyUuid);
      if (!policy || alertsWaitMinutes < 0) return false;
      const start = now + alertsWaitMinutes * 60_000;
      const first = sendDueAt(policy, start, 0)!;
      store.outages.setEscalation(o.uuid, start, first, 0);
      if (first <= now) send(store.outages.get(o.uuid)!, policy, now, 'alerted', null, null);
      return true;
    },
    /**
     * When the scheduled send of an outage is due at `now` (ongoing, unacknowledged), queues it.
     * Call inside a transaction. @returns true when something was queued or skipped as held
     */
    sendDue(uuid: string, now: number): boolean {
      const o = store.outages.get(uuid);
      if (!o || o.endAt !== null || o.acknowledgedAt !== null || o.nextAlertAt === null || o.nextAlertAt > now) return false;
      const policy = policyOf(o.escalationPolicyUuid);
      if (!policy) {
        store.outages.setEscalation(o.uuid, o.escalationStartAt, null, o.alertedSteps);
        return false;
      }
      send(o, policy, now, 'alerted', null, null);
      return true;
    },
    /**
     * Starts an outage's escalation over from `startAt` (epoch ms; step 1 due at startAt + its
     * `after_minutes`), e.g. when alerts held by the flood guard are released. Call inside a
     * transaction. Outages that were never to alert (no policy, `alerts_wait` −1) stay so.
     */
    restart(uuid: string, startAt: number): void {
      const o = store.outages.get(uuid);
      const policy = o && policyOf(o.escalationPolicyUuid);
      if (!o || !policy || o.endAt !== null || o.escalationStartAt === null) return;
      store.outages.setEscalation(uuid, startAt, o.acknowledgedAt === null ? sendDueAt(policy, startAt, 0) : null, 0);
    },
    /** True when `o` has a policy with a step not yet sent (repeats do not count). */
    hasNextStep(o: OutageRecord): boolean {
      const policy = policyOf(o.escalationPolicyUuid);
      return policy !== undefined && o.alertedSteps < policy.steps.length;
    },
    /** Sends the next step now (POST escalate). Call inside a transaction after {@link hasNextStep}. */
    escalateNow(o: OutageRecord, now: number, userUuid: string | null, note: string | null): void {
      send(o, policyOf(o.escalationPolicyUuid)!, now, 'escalated', userUuid, note);
    },
    /**
     * An acknowledged outage (in its acknowledging transaction): an `acknowledge` message to every
     * alerted channel that tracks alert state (PagerDuty, Opsgenie); chat channels get nothing.
     */
    acknowledged(o: OutageRecord, now: number): void {
      const channels = store.alerts.alertedChannels(o.uuid).filter((c) => tracking.has(c));
      if (channels.length === 0) return;
      const message = JSON.stringify(renderAlert('acknowledge', source(o), null, link(o), now));
      for (const channel of channels) store.alerts.insert({ outageUuid: o.uuid, channel, kind: 'acknowledge', step: null, message, createdAt: now, dueAt: now });
    },
    /**
     * A resolved outage (in its resolving transaction): no more sends; a recovery message to every
     * channel that was alerted; timeline entry.
     */
    resolved(o: OutageRecord, now: number, userUuid: string | null, note: string | null): void {
      store.outages.setEscalation(o.uuid, o.escalationStartAt, null, o.alertedSteps);
      const channels = store.alerts.alertedChannels(o.uuid);
      if (channels.length > 0) {
        const message = JSON.stringify(renderAlert('recovery', source(o), null, link(o), now));
        for (const channel of channels) store.alerts.insert({ outageUuid: o.uuid, channel, kind: 'recovery', step: null, message, createdAt: now, dueAt: now });
      }
      store.outages.addEvent(o.uuid, { at: now, type: 'resolved', userUuid, message: note });
    },
  };
}

/** The escalation service's interface. */
export type EscalationService = ReturnType<typeof escalationService>;
