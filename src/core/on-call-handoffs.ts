import { LOOK_AHEAD_MS, LOOK_BACK_MS, nextHandoff, onCallWindow } from '../domain/on-call/rotation.ts';
import type { OnCallSchedule } from '../domain/on-call/schedule.ts';
import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { PageAttempt, PersonMessage } from './people-pages.ts';

/** How long before a hand-off the incoming person is told, ms (15 minutes). */
export const HANDOFF_NOTICE_LEAD_MS = 15 * 60_000;
/** A hand-off missed (Pharos was stopped, or the schedule was just changed) is still told this long after it, ms (15 minutes). */
export const HANDOFF_NOTICE_LATE_MS = 15 * 60_000;
/** The longest the timer sleeps between looks, ms (5 minutes): schedule and override changes are seen by then. */
export const HANDOFF_TICK_MS = 5 * 60_000;

/** Moves a schedule's last notified hand-off forward to `handoffAt`; false when it (or a later one) was claimed already. */
const claim = procedure('onCall.claimHandoff', (tx: Store, a: { scheduleUuid: string; handoffAt: number; userUuid: string; now: number }): boolean =>
  tx.onCall.claimHandoff(a.scheduleUuid, a.handoffAt, a.userUuid, a.now),
);

const WEEKDAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "09:00", "Mon 09:00" (within 6 days) or "Mon 15 Jun 09:00" of epoch ms `at` in `zone`, as seen at `now`. */
export function handoffWhen(zone: string, at: number, now: number): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(at)).map((p) => [p.type, p.value]));
  const dayOf = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(ms));
  const time = `${parts.hour}:${parts.minute}`;
  if (dayOf(at) === dayOf(now)) return time;
  const weekday = WEEKDAY[new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day))).getUTCDay()]!;
  return at - now < 6 * 86_400_000 ? `${weekday} ${time}` : `${weekday} ${parts.day} ${MONTH[Number(parts.month) - 1]} ${time}`;
}

/** The notice of `s`'s hand-off to its incoming person: "You are on call for "Primary" from 09:00 (Europe/Berlin) until Mon 09:00". */
export function handoffMessage(s: Pick<OnCallSchedule, 'name' | 'timeZone'>, start: number, end: number, now: number): PersonMessage {
  const from = handoffWhen(s.timeZone, start, now);
  const until = handoffWhen(s.timeZone, end, now);
  const text = `You are on call for "${s.name}" from ${from} (${s.timeZone}) until ${until}.`;
  return { title: `On call for "${s.name}" from ${from}`, text, speech: text, link: null };
}

/**
 * Hand-off notifications (issue 34 point 2): shortly before ({@link HANDOFF_NOTICE_LEAD_MS}) each
 * hand-off of a schedule, the person taking over is told "You are on call for … from 09:00
 * (Europe/Berlin) until Mon 09:00" through their verified contact methods (`people.notify`: no
 * voice calls, no rule delays). Once per hand-off: each is claimed in the store first
 * (`on_call_handoff_notices`, only moving forward), so a restart or a second instance never tells it
 * again (at most once: a send that fails after the claim is not retried; it is logged). Runs where
 * `leading()` says so (the leader of a cluster); the timer sleeps until the next hand-off's notice
 * time, at most {@link HANDOFF_TICK_MS}.
 */
export function handoffNoticesService(deps: { store: Store; clock: Clock; logger: Logger; people: { notify(userUuid: string, message: PersonMessage): Promise<PageAttempt[]> } }) {
  const { store, clock, logger } = deps;
  let timer: TimerHandle | null = null;
  let leading: (() => boolean) | null = null;
  const inFlight = new Set<Promise<unknown>>();

  /** Tells every hand-off due now; @returns the next instant worth a look (epoch ms). */
  async function run(): Promise<{ sent: number; nextAt: number }> {
    const now = clock.now();
    let sent = 0;
    let nextAt = now + HANDOFF_TICK_MS;
    for (const s of await store.async.onCall.list()) {
      const at = now + HANDOFF_NOTICE_LEAD_MS;
      const overrides = await store.async.onCall.overrides(s.uuid, now - LOOK_BACK_MS, at + LOOK_AHEAD_MS);
      const { current } = onCallWindow(s, overrides, at);
      const upcoming = nextHandoff(s, overrides, at);
      if (upcoming !== null) nextAt = Math.min(nextAt, upcoming - HANDOFF_NOTICE_LEAD_MS);
      if (!current || current.start <= now - HANDOFF_NOTICE_LATE_MS) continue;
      const last = await store.async.onCall.lastHandoff(s.uuid);
      if (last !== undefined && last >= current.start) continue;
      if (!(await store.async.tx(claim, { scheduleUuid: s.uuid, handoffAt: current.start, userUuid: current.userUuid, now }))) continue;
      const tried = await deps.people.notify(current.userUuid, handoffMessage(s, current.start, current.end, now));
      if (tried.length === 0) logger.warn(`on-call hand-off of "${s.name}" to ${current.userUuid}: no verified contact method to tell them`, { schedule: s.uuid });
      else if (!tried.some((t) => t.ok)) logger.error(`on-call hand-off of "${s.name}" to ${current.userUuid}: every method failed`, { schedule: s.uuid });
      sent++;
    }
    return { sent, nextAt: Math.max(nextAt, now + 1000) };
  }

  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  function arm(at: number): void {
    timer?.cancel();
    timer = clock.setTimer(Math.max(at - clock.now(), 0), () => {
      timer = null;
      if (!leading) return;
      if (!leading()) return arm(clock.now() + HANDOFF_TICK_MS);
      void track(run())
        .then((r) => leading && arm(r.nextAt))
        .catch((e: unknown) => {
          logger.error(`on-call hand-off notices failed: ${(e as Error).message}`);
          if (leading) arm(clock.now() + HANDOFF_TICK_MS);
        });
    });
  }

  return {
    /**
     * Tells the hand-offs due now (those within the next 15 minutes or missed by at most 15), each once.
     * @returns how many hand-offs were claimed and told
     * @throws (rejects) AppError 503 when the store cannot be reached
     */
    runDue: async (): Promise<number> => (await track(run())).sent,
    /** Starts the timer; it acts only while `isLeader()` is true (the leader of a cluster; always with one instance). */
    start(isLeader: () => boolean): void {
      leading = isLeader;
      arm(clock.now());
    },
    /** Stops the timer (what was told stays stored). */
    stop(): void {
      leading = null;
      timer?.cancel();
      timer = null;
    },
    /** Resolves when the runs started by the timer have finished (tests). */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

/** The hand-off notices service's interface. */
export type HandoffNoticesService = ReturnType<typeof handoffNoticesService>;
