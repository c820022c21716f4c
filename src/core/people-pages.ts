import { openSettings } from '../domain/integration.ts';
import { PAGE_CLAIM_STALE_MS, PROVIDER, pageSteps, type ContactKind, type ProviderKind, type ContactMethod, type PageContent, type PendingPage } from '../domain/people.ts';
import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { ChannelTestTarget } from './channels.ts';
import type { ConsolePager } from './console-pager.ts';

/** What is sent to a person: a page or a verification code. */
export interface PersonMessage {
  /** One line (SMS and push titles, email subject). */
  title: string;
  /** A few sentences, with the acknowledge/resolve links of a page. */
  text: string;
  /** What a voice call says (default: the title and text). */
  speech?: string;
  /** The main link (acknowledge), or null. */
  link: string | null;
  /** Inline buttons (Telegram only: `text` shown, `data` the callback data sent back to `/hooks/telegram/…`). */
  buttons?: Array<{ text: string; data: string }>;
  /** The outage the message is about (console notifications group by it), if any. */
  tag?: string;
}

/**
 * Delivers one message to one address through the provider integration of its kind (implemented by
 * alerting: src/alerting/person-sender.ts; wired by main). `provider` is the integration's opened
 * settings, or null (ntfy: ntfy.sh).
 * @throws Error (rejects) with a message safe to log (no secrets, no address) when the provider refused or could not be reached
 */
export type PersonSender = (target: { kind: ProviderKind; address: string; provider: ChannelTestTarget | null }, message: PersonMessage) => Promise<void>;

/** One method tried by {@link pagesService} `page`. */
export interface PageAttempt {
  methodUuid: string;
  kind: ContactKind;
  /** Masked address. */
  hint: string;
  ok: boolean;
  /** Why it failed, or null. */
  error: string | null;
}

/** The answer of `page`: what was tried now, and what waits (epoch ms due). */
export interface PageResult {
  tried: PageAttempt[];
  scheduled: Array<{ methodUuid: string; kind: ContactKind; delayMinutes: number; dueAt: number }>;
  /** At least one method tried now succeeded. False with nothing tried and nothing scheduled: the person cannot be paged at all. */
  reached: boolean;
}

/** A person's rules and methods; none for a disabled account or an unknown uuid (nobody to page). */
const readPlan = procedure('people.readPlan', (tx: Store, a: { userUuid: string }) => {
  const member = tx.people.member(a.userUuid);
  if (!member || member.disabledAt !== null) return { rules: [], methods: [], disabled: true };
  return { rules: tx.people.rules(a.userUuid), methods: tx.people.methods(a.userUuid), disabled: false };
});
const schedule = procedure('people.schedule', (tx: Store, a: { rows: Array<Omit<PendingPage, 'id'>>; now: number }) => {
  for (const r of a.rows) tx.people.insertPending(r, a.now);
});
const claimDue = procedure('people.claimDue', (tx: Store, a: { now: number }) => tx.people.claimDue(a.now, a.now - PAGE_CLAIM_STALE_MS));
const donePending = procedure('people.donePending', (tx: Store, a: { id: number }) => tx.people.deletePending(a.id));
const cancelOutage = procedure('people.cancelOutage', (tx: Store, a: { outageUuid: string }) => tx.people.cancelOutage(a.outageUuid));

/**
 * The first enabled integration of the kind that carries `kind` (by name: the integrations list's
 * order), its settings opened; null when there is none.
 */
export async function providerFor(store: Store, box: () => SecretBox, kind: ContactKind): Promise<ChannelTestTarget | null> {
  if (kind === 'console') return null;
  const want = PROVIDER[kind].kind;
  const found = (await store.async.integrations.list()).find((i) => i.kind === want && i.enabled);
  if (!found) return null;
  const settings = openSettings(found.settings, (await store.async.integrations.sealedSecrets(found.uuid)) ?? [], (s) => box().open(s));
  return { name: found.name, kind: found.kind, settings };
}

/** The message of a page: its text and the acknowledge / resolve links. */
function pageMessage(p: PageContent): PersonMessage {
  const links = [p.ackUrl ? `Acknowledge: ${p.ackUrl}` : '', p.resolveUrl ? `Resolve: ${p.resolveUrl}` : ''].filter(Boolean);
  const buttons = p.telegramAck && p.telegramResolve ? [{ text: 'Acknowledge', data: p.telegramAck }, { text: 'Resolve', data: p.telegramResolve }] : undefined;
  return { title: p.title, text: [p.text, ...links].join('\n'), speech: `Pharos page. ${p.title}. ${p.text}`, link: p.ackUrl ?? null, tag: p.outageUuid, ...(buttons ? { buttons } : {}) };
}

/**
 * Paging a person (issue 34 point 1): the steps of their notification rules, the immediate ones sent
 * at once and the delayed ones stored (`pending_pages`) and sent by a timer of this service when due,
 * unless the outage's pages are cancelled first. The timer is re-armed from the store at `resume()`
 * (start), so a restart loses no step; a step claimed by an instance that died is sent again after
 * 5 minutes (at least once).
 */
export function pagesService(deps: { store: Store; clock: Clock; logger: Logger; box: () => SecretBox; sender: PersonSender | undefined; consolePager: ConsolePager }) {
  const { store, clock, logger } = deps;
  let timer: TimerHandle | null = null;
  let timerAt: number | null = null;
  let stopped = true;
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch((e: unknown) => logger.error(`delayed pages failed: ${(e as Error).message}`));
    return p;
  };

  /** Sends `message` through `method`. @returns null when delivered, else why not (safe to log) */
  async function deliver(method: ContactMethod, message: PersonMessage): Promise<string | null> {
    if (method.kind === 'console') {
      // Reached when at least one of the person's console tabs is open on this instance (issue 34 point 5: none open = failed).
      const n = await deps.consolePager.deliver(method.userUuid, { title: message.title, text: message.text, link: message.link, tag: message.tag ?? '' });
      return n > 0 ? null : 'no console of this person is open';
    }
    if (!deps.sender) return 'paging is not wired here (no alerting part)';
    try {
      const sealed = await store.async.people.sealedAddress(method.uuid);
      if (!sealed) return 'the contact method was deleted';
      const provider = await providerFor(store, deps.box, method.kind);
      if (!provider && method.kind !== 'ntfy') return `no enabled ${PROVIDER[method.kind].kind} integration: an admin adds one under Integrations`;
      await deps.sender({ kind: method.kind, address: deps.box().open(sealed), provider }, message);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  }

  async function attempt(userUuid: string, m: ContactMethod, p: PageContent, step: string): Promise<PageAttempt> {
    const error = await deliver(m, pageMessage(p));
    if (error) logger.warn(`page ${step} to ${userUuid} by ${m.kind} ${m.hint} failed: ${error}`, { outage: p.outageUuid, method: m.uuid });
    else logger.info(`page ${step} sent to ${userUuid} by ${m.kind} ${m.hint}: ${p.title}`, { outage: p.outageUuid, method: m.uuid });
    return { methodUuid: m.uuid, kind: m.kind, hint: m.hint, ok: error === null, error };
  }

  function arm(at: number): void {
    if (stopped || (timer && timerAt !== null && timerAt <= at)) return;
    timer?.cancel();
    timerAt = at;
    timer = clock.setTimer(at - clock.now(), () => {
      timer = null;
      timerAt = null;
      void track(runDue());
    });
  }

  async function rearm(): Promise<void> {
    const next = await store.async.people.nextDue();
    if (next !== null) arm(next);
  }

  /** Sends every step due now; then arms the timer for the next one. */
  async function runDue(): Promise<number> {
    let sent = 0;
    try {
      const now = clock.now();
      for (const row of await store.async.tx(claimDue, { now })) {
        const m = await store.async.people.method(row.methodUuid);
        // A method deleted or no longer verified since the page: the step is dropped.
        if (m && m.verifiedAt !== null) {
          await attempt(row.userUuid, m, JSON.parse(row.page) as PageContent, `after ${row.delayMinutes} min`);
          sent++;
        }
        await store.async.tx(donePending, { id: row.id });
      }
      await rearm();
    } catch (e) {
      logger.error(`delayed pages could not be sent: ${(e as Error).message}`);
      if (!stopped) arm(clock.now() + 30_000);
    }
    return sent;
  }

  return {
    deliver,
    /**
     * Pages person `userUuid` about `page.outageUuid` by their notification rules (none: every verified
     * method at once; unverified methods never; a disabled account or unknown uuid: nothing): the steps with delay 0 are sent now, the others stored
     * with their due time (now + delay minutes) and sent then unless {@link cancelPages} ran for the
     * outage. Paging the same outage and person again sends the immediate steps again but stores no
     * second copy of a delayed one. Logs one line per method tried (masked address).
     * @returns what was tried now and what is scheduled; `reached` false when nothing sent now succeeded
     * @throws (rejects) AppError 503 `store.unavailable` when the store cannot be reached
     */
    async page(userUuid: string, page: PageContent): Promise<PageResult> {
      const now = clock.now();
      const { rules, methods, disabled } = await store.async.tx(readPlan, { userUuid });
      const steps = pageSteps(rules, methods);
      const byUuid = new Map(methods.map((m) => [m.uuid, m]));
      const later = steps.filter((s) => s.delayMinutes > 0);
      const stored: PageContent = { outageUuid: page.outageUuid, title: page.title, text: page.text, ackUrl: page.ackUrl, resolveUrl: page.resolveUrl, telegramAck: page.telegramAck, telegramResolve: page.telegramResolve };
      const rows = later.map((s) => ({ outageUuid: page.outageUuid, userUuid, methodUuid: s.methodUuid, delayMinutes: s.delayMinutes, dueAt: now + s.delayMinutes * 60_000, page: JSON.stringify(stored) }));
      // Stored before the immediate sends: a crash while sending loses no later step.
      if (rows.length > 0) await store.async.tx(schedule, { rows, now });
      const tried: PageAttempt[] = [];
      for (const s of steps.filter((x) => x.delayMinutes === 0)) tried.push(await attempt(userUuid, byUuid.get(s.methodUuid)!, page, 'at once'));
      if (steps.length === 0) logger.warn(`page to ${userUuid} not sent: ${disabled ? 'no such person, or the account is disabled' : 'no verified contact method'}`, { outage: page.outageUuid });
      for (const r of rows) arm(r.dueAt);
      return { tried, scheduled: rows.map((r) => ({ methodUuid: r.methodUuid, kind: byUuid.get(r.methodUuid)!.kind, delayMinutes: r.delayMinutes, dueAt: r.dueAt })), reached: tried.some((t) => t.ok) };
    },
    /**
     * A notification that is not about an outage (issue 34 point 2: "you are on call from 09:00"):
     * sent at once through every verified method of the person except voice calls (nobody is rung
     * for a hand-off), ignoring the notification rules' delays; nothing stored, nothing to cancel.
     * A disabled account or unknown uuid gets nothing. Logs one line per method tried (masked address).
     * @returns the methods tried (empty: nobody to tell)
     * @throws (rejects) AppError 503 `store.unavailable` when the store cannot be reached
     */
    async notify(userUuid: string, message: PersonMessage): Promise<PageAttempt[]> {
      const { methods, disabled } = await store.async.tx(readPlan, { userUuid });
      if (disabled) return [];
      const tried: PageAttempt[] = [];
      for (const m of methods.filter((x) => x.verifiedAt !== null && x.kind !== 'voice')) {
        const error = await deliver(m, message);
        if (error) logger.warn(`notice to ${userUuid} by ${m.kind} ${m.hint} failed: ${error}`, { method: m.uuid });
        else logger.info(`notice sent to ${userUuid} by ${m.kind} ${m.hint}: ${message.title}`, { method: m.uuid });
        tried.push({ methodUuid: m.uuid, kind: m.kind, hint: m.hint, ok: error === null, error });
      }
      return tried;
    },
    /** Deletes every delayed step of the outage's pages (acknowledged or resolved). @returns how many */
    async cancelPages(outageUuid: string): Promise<number> {
      const n = await store.async.tx(cancelOutage, { outageUuid });
      if (n > 0) logger.info(`${n} delayed page step${n === 1 ? '' : 's'} cancelled`, { outage: outageUuid });
      return n;
    },
    /** Sends the steps due now (the timer does this by itself; tests and the leader may call it). @returns steps sent */
    runDue: () => track(runDue()),
    /** Starts the timer of delayed steps from the store (at start, or when this instance starts leading). */
    async resume(): Promise<void> {
      stopped = false;
      await rearm();
    },
    /** Stops the timer (steps stay stored). */
    stop(): void {
      stopped = true;
      timer?.cancel();
      timer = null;
      timerAt = null;
    },
    /** Resolves when the sends started by the timer have finished (tests). */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
