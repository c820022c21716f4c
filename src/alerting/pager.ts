import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Core } from '../core/index.ts';
import type { PageResult } from '../core/people-pages.ts';
import { stepOfSend } from '../domain/escalation.ts';
import { PAGE_CLAIM_STALE_MS } from '../domain/people.ts';
import type { OutageEvent, OutageRecord } from '../domain/outage.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';

/**
 * Appends the timeline entries of a step's pages (who was paged, by which methods) and, with `send`,
 * marks that send's page request done, in one transaction.
 */
const recordPages = procedure('pager.record', (tx: Store, a: { uuid: string; events: OutageEvent[]; send?: number; now?: number }): void => {
  if (a.send !== undefined) tx.people.pageRequestDone(a.uuid, a.send, a.now ?? 0);
  if (!tx.outages.get(a.uuid)) return;
  for (const e of a.events) tx.outages.addEvent(a.uuid, e);
});

/** The outage of a claimed request when it is still to be paged; a moot one (outage gone, acknowledged, resolved) is marked done. */
function liveOutage(tx: Store, uuid: string, send: number, now: number): OutageRecord | undefined {
  const o = tx.outages.get(uuid);
  if (o && o.endAt === null && o.acknowledgedAt === null) return o;
  tx.people.pageRequestDone(uuid, send, now);
  return undefined;
}

/** Claims the page request of send `send` of outage `uuid` (conditional update): the outage to page, or undefined (taken, done or moot). */
const claimOne = procedure('pager.claim', (tx: Store, a: { uuid: string; send: number; now: number }): OutageRecord | undefined => {
  if (!tx.people.claimPageRequest(a.uuid, a.send, a.now, a.now - PAGE_CLAIM_STALE_MS)) return undefined;
  return liveOutage(tx, a.uuid, a.send, a.now);
});

/** Claims every page request not done whose claim is absent or stale: the ones to page now (moot ones marked done). */
const claimOpen = procedure('pager.claimOpen', (tx: Store, a: { now: number }): Array<{ send: number; outage: OutageRecord }> => {
  const out: Array<{ send: number; outage: OutageRecord }> = [];
  for (const r of tx.people.claimOpenPageRequests(a.now, a.now - PAGE_CLAIM_STALE_MS)) {
    const o = liveOutage(tx, r.outageUuid, r.sendNumber, a.now);
    if (o) out.push({ send: r.sendNumber, outage: o });
  }
  return out;
});

/**
 * Issue 34 point 5: a step that reached nobody brings the next one forward to now, when the outage
 * is still ongoing, unacknowledged and at the same send (`sent`: its `alertedSteps` when paged), and
 * a next send is scheduled. @returns true when the schedule moved (the stepper re-reads it)
 */
const hurryNext = procedure('pager.hurry', (tx: Store, a: { uuid: string; sent: number; now: number }): boolean => {
  const o = tx.outages.get(a.uuid);
  if (!o || o.endAt !== null || o.acknowledgedAt !== null || o.alertedSteps !== a.sent || o.nextAlertAt === null || o.nextAlertAt <= a.now) return false;
  tx.outages.setEscalation(o.uuid, o.escalationStartAt, a.now, o.alertedSteps);
  return true;
});

/** What paging one send of a policy did. */
export interface StepPages {
  /** The step had person targets (users, schedules). */
  hadPeople: boolean;
  /** Someone was reached at once (or has a later method scheduled), or the step also alerts integrations. */
  reached: boolean;
  /** The next step was brought forward to now (nobody reached). */
  hurried: boolean;
}

const nameOf = (o: OutageRecord) => o.monitor?.name ?? o.healthcheck?.name ?? o.description;

/**
 * Pages the people of an escalation step (issue 34 point 3): called by the stepper after the step's
 * transaction committed (never inside one). That transaction stored a page request (`page_requests`,
 * core/escalation.ts `send`); the pager claims it (one instance only), pages, and marks it done with
 * the timeline entries; {@link recover} pages the requests left open by an instance that stopped
 * (at least once: a page may go twice when a process dies after paging and before marking it done). A `user` target is paged as that person, a `schedule`
 * target as whoever is on call at that moment (core.onCall.onCallAt), each once per step, through
 * core.people.page with acknowledge and resolve links (core.pageLinks, when a secret key is there).
 * The timeline gets one `alerted` entry per person paged (methods tried and scheduled) and one per
 * schedule with nobody on call. Sends held by a gate (maintenance, flood guard) page nobody.
 *
 * The pager's own guarantee (issue 34 point 5): when the step had person targets and reached nobody
 * (every immediate send failed, or nobody on call, and no integration in the step), the next step is
 * brought forward to now (`pager.hurry`), an operator log line (error) is written, and the admins are
 * paged through their own contact methods with what happened.
 */
export function createPager(deps: { core: Core; store: Store; clock: Clock; logger: Logger }) {
  const { core, store, clock, logger } = deps;

  async function held(o: OutageRecord, now: number): Promise<boolean> {
    if (core.escalation.snapshot([o.uuid]).held.length > 0) return true;
    return o.monitorId !== null && (await store.async.maintenance.activeForMonitor(o.monitorId, now));
  }

  async function tellAdmins(o: OutageRecord, why: string): Promise<void> {
    const text = `Outage #${o.incidentNumber} (${nameOf(o)}): ${why}. Check the on-call schedules and contact methods.`;
    logger.error(`pager: nobody reached for outage #${o.incidentNumber}: ${why}`, { outage: o.uuid, incident: o.incidentNumber });
    const admins = (await store.async.people.members()).filter((m) => m.role === 'admin' && m.disabledAt === null);
    for (const a of admins) {
      // Under the outage's uuid: acknowledging or resolving it cancels these pages' later steps too.
      const r = await core.people.page(a.uuid, { outageUuid: o.uuid, title: `Pharos could not page anyone for outage #${o.incidentNumber}`, text, ...(await core.pageLinks.linksFor(o.uuid, a.uuid, clock.now())) });
      if (!r.reached) logger.error(`pager: admin ${a.email} could not be told either`, { outage: o.uuid });
    }
  }

  /**
   * Pages the people of send number `sent` of outage `o` (1-based; repeats page the last step's people
   * again), whose page request this instance claimed; marks the request done with the timeline.
   * @throws (rejects) AppError 503 when the store cannot be reached (the request stays claimed: retried after 5 minutes)
   */
  async function pageClaimed(o: OutageRecord, sent: number): Promise<StepPages> {
    const none = { hadPeople: false, reached: true, hurried: false };
    const now = clock.now();
    const done = async () => void (await store.async.tx(recordPages, { uuid: o.uuid, events: [], send: sent, now }));
    if (sent < 1 || !o.escalationPolicyUuid) return (await done(), none);
    const policy = await store.async.escalationPolicies.get(o.escalationPolicyUuid);
    if (!policy || policy.steps.length === 0) return (await done(), none);
    const stepIndex = stepOfSend({ steps: policy.steps, repeat_policy: policy.policyRepeats }, sent - 1).step - 1;
    const step = policy.steps[stepIndex]!;
    const targets = step.targets.filter((t) => t.type !== 'integration');
    if (targets.length === 0 || (await held(o, now))) return (await done(), none);

    const events: OutageEvent[] = [];
    const people = new Map<string, string>();
    const gaps: string[] = [];
    for (const t of targets) {
      if (t.type === 'user') {
        if (!people.has(t.uuid)) people.set(t.uuid, 'a target of the step');
        continue;
      }
      try {
        const view = await core.onCall.onCallAt(t.uuid, now);
        const who = view.current?.userUuid;
        if (who) {
          if (!people.has(who)) people.set(who, `on call for schedule "${view.schedule.name}"`);
        } else gaps.push(`schedule "${view.schedule.name}" has nobody on call`);
      } catch (e) {
        gaps.push(`schedule ${t.uuid} could not be read: ${(e as Error).message}`);
      }
    }
    for (const g of gaps) events.push({ at: now, type: 'alerted', userUuid: null, message: `step ${stepIndex + 1}: ${g}` });

    const title = `Outage #${o.incidentNumber}: ${nameOf(o)} is down`;
    const text = `${o.description}. Reply ACK ${o.incidentNumber} or RESOLVE ${o.incidentNumber}.`;
    let reached = step.targets.some((t) => t.type === 'integration');
    const members = new Map((await store.async.people.members()).map((m) => [m.uuid, m]));
    for (const [userUuid, why] of people) {
      const links = await core.pageLinks.linksFor(o.uuid, userUuid, now);
      let r: PageResult;
      try {
        r = await core.people.page(userUuid, { outageUuid: o.uuid, title, text, ...links });
      } catch (e) {
        logger.error(`pager: paging ${userUuid} failed: ${(e as Error).message}`, { outage: o.uuid });
        r = { tried: [], scheduled: [], reached: false };
      }
      if (r.reached || (r.tried.length === 0 && r.scheduled.length > 0)) reached = true;
      const m = members.get(userUuid);
      const who = m ? `${m.name || m.email} (${userUuid})` : userUuid;
      const tried = r.tried.map((t) => `${t.kind} ${t.hint} ${t.ok ? 'sent' : `failed: ${t.error ?? 'unknown'}`}`);
      const later = r.scheduled.map((s) => `${s.kind} after ${s.delayMinutes} min unless acknowledged`);
      const how = [...tried, ...later].join('; ') || 'no verified contact method';
      events.push({ at: now, type: 'alerted', userUuid: null, message: `step ${stepIndex + 1}: paged ${who}, ${why}: ${how}` });
    }
    await store.async.tx(recordPages, { uuid: o.uuid, events, send: sent, now: clock.now() });
    if (reached) return { hadPeople: true, reached, hurried: false };

    const why = [...gaps, ...(people.size > 0 ? ['every immediate page failed'] : [])].join('; ') || 'nobody to page';
    const hurried = await store.async.tx(hurryNext, { uuid: o.uuid, sent, now });
    if (hurried) await store.async.tx(recordPages, { uuid: o.uuid, events: [{ at: now, type: 'alerted', userUuid: null, message: `step ${stepIndex + 1} reached nobody: the next step is sent at once` }] });
    await tellAdmins(o, `step ${stepIndex + 1} of "${policy.name}" reached nobody (${why})${hurried ? '; the next step is sent at once' : ''}`);
    return { hadPeople: true, reached, hurried };
  }

  /**
   * Pages the people of send `sent` of outage `uuid` (its `alertedSteps` right after that send) when
   * this instance claims the send's page request; nothing when there is none (the send was held, the
   * step has no people), another instance has it, or it is done.
   * @throws (rejects) AppError 503 when the store cannot be reached
   */
  async function pageStep(uuid: string, sent: number): Promise<StepPages> {
    const o = await store.async.tx(claimOne, { uuid, send: sent, now: clock.now() });
    return o ? pageClaimed(o, sent) : { hadPeople: false, reached: true, hurried: false };
  }

  /**
   * Pages every page request not done whose claim is absent or older than 5 minutes (a leader that
   * stopped between a send's commit and its pages, or while paging), one after another; a request
   * whose outage is acknowledged, resolved or gone is marked done without paging.
   * @returns per request paged, its outage and what paging did
   * @throws (rejects) AppError 503 when the store cannot be reached
   */
  async function recover(): Promise<Array<{ uuid: string; pages: StepPages }>> {
    const out: Array<{ uuid: string; pages: StepPages }> = [];
    for (const r of await store.async.tx(claimOpen, { now: clock.now() })) {
      logger.warn(`pager: paging send ${r.send} of outage #${r.outage.incidentNumber} left unpaged by an instance that stopped`, { outage: r.outage.uuid, send: r.send });
      out.push({ uuid: r.outage.uuid, pages: await pageClaimed(r.outage, r.send) });
    }
    return out;
  }

  /** When {@link recover} should run again (epoch ms: 5 minutes after the oldest open request's claim), or null when none is open. */
  async function retryAt(): Promise<number | null> {
    const since = await store.async.people.pageRequestsSince();
    return since === null ? null : Math.max(since + PAGE_CLAIM_STALE_MS, clock.now() + 1000);
  }

  return { pageStep, recover, retryAt };
}

/** The pager of {@link createPager}. */
export type Pager = ReturnType<typeof createPager>;
