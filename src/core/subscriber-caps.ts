import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.ts';
import { AppError } from '../lib/errors.ts';
import { mailboxOf, numberBlock } from '../domain/subscriber-caps.ts';
import type { Store } from '../store/index.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Count windows are kept this long (the longest window, a day, plus one). */
const KEEP_MS = 2 * DAY_MS;

/** The settings the caps read (`status_pages.subscriptions`): plain values, so they can be handed to a procedure. */
export type CapLimits = Pick<
  Config['status_pages']['subscriptions'],
  'sms_per_hour' | 'sms_per_day' | 'sms_code_wait_hours' | 'sms_prefix_digits' | 'sms_per_prefix_per_hour' | 'sms_per_prefix_per_day' | 'email_per_mailbox_per_hour' | 'email_per_mailbox_per_day'
>;

/** The cap settings of `limits` alone (a copy of plain numbers). */
export function capLimitsOf(limits: CapLimits): CapLimits {
  const { sms_per_hour, sms_per_day, sms_code_wait_hours, sms_prefix_digits, sms_per_prefix_per_hour, sms_per_prefix_per_day, email_per_mailbox_per_hour, email_per_mailbox_per_day } = limits;
  return { sms_per_hour, sms_per_day, sms_code_wait_hours, sms_prefix_digits, sms_per_prefix_per_hour, sms_per_prefix_per_day, email_per_mailbox_per_hour, email_per_mailbox_per_day };
}

const hour = (now: number) => now - (now % HOUR_MS);
const day = (now: number) => now - (now % DAY_MS);

/** The global SMS caps at `now`: all pages together, per clock hour and UTC day. */
export function smsCaps(limits: CapLimits, now: number) {
  return [
    { key: 'sms:h', windowStart: hour(now), limit: limits.sms_per_hour, why: `the texts of this hour are used up`, setting: `sms_per_hour (${limits.sms_per_hour})` },
    { key: 'sms:d', windowStart: day(now), limit: limits.sms_per_day, why: `the texts of this day are used up`, setting: `sms_per_day (${limits.sms_per_day})` },
  ];
}

const paused = (why: string) => new AppError(429, 'subscriptions.sms_paused', `SMS subscriptions are paused: ${why}; try again later or subscribe by email`);

/*
 * What anonymous visitors can make the operator pay for (issue 30 point 3; docs/api.md
 * "Subscriptions"), counted in the store so the caps hold across pages, concurrent requests,
 * instances and restarts (store/subscribers.ts `takeSend`, one atomic upsert per key and window):
 * - texts to subscribers, all pages together, per clock hour (`sms_per_hour`) and UTC day
 *   (`sms_per_day`): codes when they are asked for, notices when they are sent;
 * - codes to one number block (numbers sharing their first `sms_prefix_digits` digits) per hour and day;
 * - a number texted a code gets no other text until the code is typed back or `sms_code_wait_hours` pass;
 * - confirmation mails to one mailbox ({@link mailboxOf}: `+tag` and Gmail's dots removed) per hour and day.
 * Windows are fixed (clock hours, UTC days), so up to twice a cap can go out across a window's edge.
 * The functions below are pure functions of (transaction, arguments): they run inside the procedure
 * of the write they belong to (core/subscriptions.ts), so a count and its write commit together.
 */

/**
 * Counts a code text to `number` at `now` in the transaction `tx`: marks the number as waiting
 * for its code, and counts the text against the global and number-block caps.
 * @throws AppError 429 `subscriptions.code_pending` (a code texted to it is not typed back yet),
 *   `subscriptions.sms_paused` (global caps), `subscriptions.too_many` (its block's caps); nothing is counted then
 */
export function takeCode(tx: Store, limits: CapLimits, number: string, now: number): void {
  const waitMs = limits.sms_code_wait_hours * HOUR_MS;
  const since = tx.subscribers.claimCodeWait(number, now, now - waitMs);
  if (since !== undefined) {
    const hours = Math.max(1, Math.ceil((since + waitMs - now) / HOUR_MS));
    throw new AppError(429, 'subscriptions.code_pending', `target: a code was texted to this number and has not been entered yet; enter it, or try again in ${hours} h`);
  }
  const block = numberBlock(number, limits.sms_prefix_digits);
  const caps = [
    ...smsCaps(limits, now),
    { key: `sms-prefix:${block}:h`, windowStart: hour(now), limit: limits.sms_per_prefix_per_hour },
    { key: `sms-prefix:${block}:d`, windowStart: day(now), limit: limits.sms_per_prefix_per_day },
  ];
  const full = tx.subscribers.takeSend(caps, now - KEEP_MS);
  if (full === 0 || full === 1) throw paused(smsCaps(limits, now)[full]!.why);
  if (full >= 2) throw new AppError(429, 'subscriptions.too_many', 'target: too many codes to numbers like this one; try again later');
}

/** Ends the wait of `number` in `tx`: its code was typed back. */
export function codeTypedBack(tx: Store, number: string): void {
  tx.subscribers.endCodeWait(number);
}

/**
 * Counts a notice text (to a confirmed subscriber) at `now` against the global caps: one atomic
 * `takeSend` (all or none).
 * @returns undefined when counted; else why it may not be sent (names the setting)
 */
export async function takeNotice(store: Store, limits: CapLimits, now: number): Promise<string | undefined> {
  const caps = smsCaps(limits, now);
  const full = await store.async.subscribers.takeSend(caps, now - KEEP_MS);
  return full < 0 ? undefined : `status_pages.subscriptions.${caps[full]!.setting} is reached`;
}

/**
 * Counts a confirmation mail to `address` at `now` in `tx` against its mailbox's caps. The key is a
 * hash of the mailbox: the counts hold no address.
 * @throws AppError 429 `subscriptions.too_many`; nothing is counted then
 */
export function takeConfirmMail(tx: Store, limits: CapLimits, address: string, now: number): void {
  const mailbox = createHash('sha256').update(mailboxOf(address)).digest('hex').slice(0, 32);
  const caps = [
    { key: `mail:${mailbox}:h`, windowStart: hour(now), limit: limits.email_per_mailbox_per_hour },
    { key: `mail:${mailbox}:d`, windowStart: day(now), limit: limits.email_per_mailbox_per_day },
  ];
  if (tx.subscribers.takeSend(caps, now - KEEP_MS) >= 0) throw new AppError(429, 'subscriptions.too_many', 'target: too many confirmation mails to this mailbox; try again later');
}
