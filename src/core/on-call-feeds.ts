import { createHash } from 'node:crypto';
import type { AuditActor } from '../domain/audit.ts';
import { randomBase62 } from '../domain/ids.ts';
import { timeline } from '../domain/on-call/rotation.ts';
import type { FeedKind, OnCallSchedule } from '../domain/on-call/schedule.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { recordAudit, type AuditStamp } from './audit-log.ts';

/**
 * iCal feeds of on-call shifts (issue 34 point 2): one per schedule and one per person (their shifts
 * in every schedule), each at a secret URL `/ical/on-call/<token>.ics` that calendars poll without
 * signing in. The token (32 base62 characters, ~190 bits) is shown once when made; only its SHA-256
 * is stored, so making a new one (rotating) is the only way to see a URL again, and the old one
 * stops answering at once. A feed lists the shifts of the next {@link FEED_WEEKS} weeks.
 */

/** How far ahead a feed lists shifts, weeks. */
export const FEED_WEEKS = 8;
const FEED_MS = FEED_WEEKS * 7 * 86_400_000;

/** SHA-256 hex of a feed token: what the store keeps and looks up. */
export const feedTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** One shift in a feed: `userUuid` on call for `schedule` over [start, end) epoch ms. */
export interface FeedEvent {
  /** Stable across polls while the shift stays the same (calendars update rather than duplicate). */
  uid: string;
  start: number;
  end: number;
  userUuid: string;
  userName: string;
  scheduleUuid: string;
  scheduleName: string;
  /** The override's uuid when the shift is one. */
  overrideUuid: string | null;
}

/** A feed's content: its title and events, by start. */
export interface Feed {
  kind: FeedKind;
  name: string;
  timeZone: string;
  events: FeedEvent[];
}

/** Makes (or replaces) a feed token's hash, audited. @throws AppError 404 for an unknown schedule or user */
const setFeed = procedure('onCall.setFeed', (tx: Store, a: AuditStamp & { kind: FeedKind; subjectUuid: string; hash: string }): void => {
  const existed = tx.onCall.feedCreatedAt(a.kind, a.subjectUuid) !== undefined;
  if (a.kind === 'schedule') {
    const s = tx.onCall.get(a.subjectUuid);
    if (!s) throw notFound('on_call_schedules', 'On-call schedule');
    tx.onCall.setFeed(a.kind, a.subjectUuid, a.hash, a.now);
    recordAudit(tx, a, { action: 'update', resourceType: 'on_call_schedule', resourceUuid: s.uuid, resourceName: s.name, diff: { ical_feed: { ...(existed ? { before: '***' } : {}), after: '***' } } });
    return;
  }
  const u = tx.users.findUser(a.subjectUuid);
  if (!u) throw notFound('users', 'User');
  tx.onCall.setFeed(a.kind, a.subjectUuid, a.hash, a.now);
  recordAudit(tx, a, { action: 'update', resourceType: 'user', resourceUuid: u.uuid, resourceName: u.name, diff: { on_call_ical_feed: { ...(existed ? { before: '***' } : {}), after: '***' } } });
});

/** Removes a feed token, audited. @throws AppError 404 when there is none */
const dropFeed = procedure('onCall.dropFeed', (tx: Store, a: AuditStamp & { kind: FeedKind; subjectUuid: string }): void => {
  if (!tx.onCall.deleteFeed(a.kind, a.subjectUuid)) throw notFound('on_call_feeds', 'iCal feed');
  const s = a.kind === 'schedule' ? tx.onCall.get(a.subjectUuid) : tx.users.findUser(a.subjectUuid);
  recordAudit(tx, a, {
    action: 'update',
    resourceType: a.kind === 'schedule' ? 'on_call_schedule' : 'user',
    resourceUuid: a.subjectUuid,
    resourceName: s?.name ?? a.subjectUuid,
    diff: { [a.kind === 'schedule' ? 'ical_feed' : 'on_call_ical_feed']: { before: '***' } },
  });
});

/** iCal feeds service (issue 34 point 2). */
export function onCallFeedsService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const eventsOf = async (schedules: OnCallSchedule[], from: number, onlyUser: string | null): Promise<FeedEvent[]> => {
    const events: FeedEvent[] = [];
    const names = new Map<string, string>();
    for (const s of schedules) {
      const overrides = await store.async.onCall.overrides(s.uuid, from, from + FEED_MS);
      for (const shift of timeline(s, overrides, from, from + FEED_MS)) {
        if (onlyUser !== null && shift.userUuid !== onlyUser) continue;
        if (!names.has(shift.userUuid)) names.set(shift.userUuid, (await store.async.users.findUser(shift.userUuid))?.name ?? shift.userUuid);
        events.push({
          uid: `${s.uuid}-${shift.userUuid}-${shift.start}@pharos`,
          start: shift.start,
          end: shift.end,
          userUuid: shift.userUuid,
          userName: names.get(shift.userUuid)!,
          scheduleUuid: s.uuid,
          scheduleName: s.name,
          overrideUuid: shift.overrideUuid,
        });
      }
    }
    return events.sort((a, b) => a.start - b.start || a.scheduleName.localeCompare(b.scheduleName));
  };
  return {
    /**
     * A new secret token for the feed of schedule (`kind` 'schedule') or person ('user') `subjectUuid`;
     * an older token of that feed stops working. @returns the token (shown once; only its hash is kept)
     * @throws (rejects) AppError 404 for an unknown schedule or user
     */
    async rotate(kind: FeedKind, subjectUuid: string, actor: AuditActor): Promise<string> {
      const token = randomBase62(32);
      await store.async.tx(setFeed, { kind, subjectUuid, hash: feedTokenHash(token), actor, now: clock.now() });
      return token;
    },
    /** Turns a feed off (its URL answers 404). @throws (rejects) AppError 404 when it has none */
    remove: (kind: FeedKind, subjectUuid: string, actor: AuditActor): Promise<void> => store.async.tx(dropFeed, { kind, subjectUuid, actor, now: clock.now() }),
    /**
     * The feed a token opens: its shifts from the start of yesterday (UTC) for {@link FEED_WEEKS} weeks.
     * @throws (rejects) AppError 404 `on_call_feeds.not_found` for a token that opens nothing (wrong, rotated, removed)
     */
    async feed(token: string): Promise<Feed> {
      const found = /^[0-9A-Za-z]{32}$/.test(token) ? await store.async.onCall.feedByHash(feedTokenHash(token)) : undefined;
      if (!found) throw notFound('on_call_feeds', 'iCal feed');
      // From the start of yesterday (UTC): a shift clipped there keeps its uid for a whole day of polls.
      const now = Math.floor(clock.now() / 86_400_000) * 86_400_000 - 86_400_000;
      if (found.kind === 'schedule') {
        const s = await store.async.onCall.get(found.subjectUuid);
        if (!s) throw notFound('on_call_feeds', 'iCal feed');
        return { kind: 'schedule', name: `On call: ${s.name}`, timeZone: s.timeZone, events: await eventsOf([s], now, null) };
      }
      const user = await store.async.users.findUser(found.subjectUuid);
      if (!user) throw notFound('on_call_feeds', 'iCal feed');
      const mine = new Set((await store.async.onCall.usingUser(user.uuid)).map((x) => x.uuid));
      const schedules = (await store.async.onCall.list()).filter((s) => mine.has(s.uuid));
      return { kind: 'user', name: `On call: ${user.name}`, timeZone: schedules[0]?.timeZone ?? 'UTC', events: await eventsOf(schedules, now, user.uuid) };
    },
  };
}

/** The iCal feeds service's interface. */
export type OnCallFeedsService = ReturnType<typeof onCallFeedsService>;
