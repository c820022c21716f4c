import { Cron } from 'croner';

/**
 * Cron expressions through croner (the design card's library; no cron maths of our own).
 * Accepted forms: the classic 5 fields `min hour dom month dow`, and 6 fields with seconds first
 * `sec min hour dom month dow`; nicknames such as `@daily` too. Day-of-month and day-of-week are
 * OR-ed as in Vixie cron. DST (croner's fixed-time rule): a fixed time that falls in a spring-forward
 * gap fires at the first valid time after the gap (`0 2 * * *` in Europe/Berlin → 03:00 CEST), and a
 * time that occurs twice in autumn fires once, at its first occurrence.
 */
const OPTIONS = { mode: '5-or-6-parts', paused: true, domAndDow: false } as const;

/** The rule broken by a valid pattern that matches no date at all, such as `0 0 30 2 *`. */
const NEVER = 'never matches a date';

/**
 * Checks a cron expression.
 * @returns null when valid, else the rule it breaks (for a 400 message)
 */
export function cronProblem(expression: string, timezone: string): string | null {
  try {
    const next = new Cron(expression, { ...OPTIONS, timezone }).nextRun(new Date(0));
    return next ? null : NEVER;
  } catch (e) {
    return (e as Error).message.replace(/^CronPattern:\s*/, '');
  }
}

/**
 * The first time strictly after `afterMs` (epoch ms) that `expression` matches in `timezone`.
 * @returns epoch ms, or null when the expression never matches again
 * @throws Error when the expression is invalid (validate with {@link cronProblem} first)
 */
export function nextCronTime(expression: string, timezone: string, afterMs: number): number | null {
  const next = new Cron(expression, { ...OPTIONS, timezone }).nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}

/**
 * True for an IANA time zone name the runtime knows (`UTC`, `Europe/Berlin`, links such as
 * `Europe/Kiev`); fixed offsets such as `+01:00` are refused: they do not follow DST.
 */
export function isIanaTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Every time `expression` matches in `timezone` within [fromMs, toMs) (epoch ms), in order, at most
 * `max` of them (the rest are left out: callers bound their ranges). DST as {@link nextCronTime}.
 * @throws Error when the expression is invalid (validate with {@link cronProblem} first)
 */
export function cronTimesBetween(expression: string, timezone: string, fromMs: number, toMs: number, max: number): number[] {
  const cron = new Cron(expression, { ...OPTIONS, timezone });
  const out: number[] = [];
  let next = cron.nextRun(new Date(fromMs - 1));
  while (next && next.getTime() < toMs && out.length < max) {
    out.push(next.getTime());
    next = cron.nextRun(next);
  }
  return out;
}

/**
 * The last time strictly before `beforeMs` (epoch ms) that `expression` matched in `timezone`.
 * @returns epoch ms, or null when it never matched before
 * @throws Error when the expression is invalid
 */
export function previousCronTime(expression: string, timezone: string, beforeMs: number): number | null {
  const prev = new Cron(expression, { ...OPTIONS, timezone }).previousRuns(1, new Date(beforeMs))[0];
  return prev ? prev.getTime() : null;
}
