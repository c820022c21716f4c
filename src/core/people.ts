import { createHash, randomInt } from 'node:crypto';
import {
  CODE_ATTEMPTS,
  CODE_RESEND_MS,
  CODE_SENDS_PER_WINDOW,
  CODE_TTL_MS,
  CODE_WINDOW_MS,
  maskAddress,
  normalizeAddress,
  normalizePhone,
  type ContactKind,
  type ContactMethod,
  type NotificationRule,
  type TeamMemberRow,
} from '../domain/people.ts';
import type { AuditActor, AuditDiff } from '../domain/audit.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { AppError } from '../lib/errors.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { pagesService, providerFor, type PersonSender } from './people-pages.ts';
import type { ConsolePager } from './console-pager.ts';
import { ADMIN_EMAIL } from './users.ts';
import { recordAudit } from './audit-log.ts';

/** SHA-256 of a method's uuid and a code (the code alone has only 10^6 values; the uuid salts it). */
const codeHash = (methodUuid: string, code: string) => createHash('sha256').update(`${methodUuid}:${code}`).digest('hex');

const notFound = (what: string) => new AppError(404, 'contact_methods.not_found', `${what} not found`);

/** A method as the audit log shows it (the masked address only). */
const audited = (m: ContactMethod) => ({ kind: m.kind, label: m.label, address: m.hint, verified: m.verifiedAt !== null });

/**
 * Records a change of a person's profile, methods or rules as an update of the user (resource type
 * `user`, like their role and sessions), in the write's transaction.
 */
function audit(tx: Store, a: { userUuid: string; actor: AuditActor; now: number }, diff: AuditDiff): void {
  const m = tx.people.member(a.userUuid);
  if (m) recordAudit(tx, { actor: a.actor, now: a.now }, { action: 'update', resourceType: 'user', resourceUuid: m.uuid, resourceName: m.email, diff });
}

const addMethod = procedure('people.addMethod', (tx: Store, a: { uuid: string; userUuid: string; kind: ContactKind; label: string; sealedAddress: string; hint: string; now: number; actor: AuditActor }) => {
  if (!tx.people.member(a.userUuid)) throw new AppError(404, 'team_members.not_found', `team member ${a.userUuid} not found`);
  // One console method per person: it reaches every open tab of theirs, so a second would page each tab twice.
  if (a.kind === 'console' && tx.people.methods(a.userUuid).some((m) => m.kind === 'console')) {
    throw new AppError(409, 'contact_methods.duplicate', 'kind: you have a console method already: it reaches every console tab you have open');
  }
  tx.people.insertMethod(a, a.now);
  // A console method is verified by being added by the signed-in person: there is nothing to send a code to.
  if (a.kind === 'console') tx.people.markVerified(a.uuid, a.now);
  const m = tx.people.method(a.uuid)!;
  audit(tx, a, { [`contact_methods.${m.uuid}`]: { after: audited(m) } });
  return m;
});

/** Rate limits and stores a new code's hash; throws 429 when too soon or too many (nothing stored). */
const storeCode = procedure('people.storeCode', (tx: Store, a: { uuid: string; hash: string; now: number }) => {
  const s = tx.people.codeState(a.uuid);
  if (!s) throw notFound(`contact method ${a.uuid}`);
  if (s.lastSentAt !== null && a.now - s.lastSentAt < CODE_RESEND_MS) {
    throw new AppError(429, 'contact_methods.too_soon', `a code was sent less than ${CODE_RESEND_MS / 1000} s ago: wait before asking for another`);
  }
  const fresh = s.sendsWindowStart === null || a.now - s.sendsWindowStart >= CODE_WINDOW_MS;
  const sends = fresh ? 1 : s.sendsInWindow + 1;
  if (sends > CODE_SENDS_PER_WINDOW) throw new AppError(429, 'contact_methods.too_many_codes', `at most ${CODE_SENDS_PER_WINDOW} codes an hour per contact method`);
  tx.people.setCode(a.uuid, { hash: a.hash, expiresAt: a.now + CODE_TTL_MS, windowStart: fresh ? a.now : s.sendsWindowStart!, sendsInWindow: sends }, a.now);
});

type VerifyOutcome = 'verified' | 'already' | 'none' | 'expired' | 'locked' | { wrong: number };

/** Checks a code: a wrong one is counted (and committed: the outcome is returned, not thrown). */
const checkCode = procedure('people.checkCode', (tx: Store, a: { uuid: string; hash: string; now: number; actor: AuditActor }): VerifyOutcome => {
  const m = tx.people.method(a.uuid);
  const s = tx.people.codeState(a.uuid);
  if (!m || !s) throw notFound(`contact method ${a.uuid}`);
  if (m.verifiedAt !== null) return 'already';
  if (s.codeAttempts >= CODE_ATTEMPTS) return 'locked';
  if (s.codeHash === null) return 'none';
  if (s.codeExpiresAt !== null && a.now >= s.codeExpiresAt) return 'expired';
  if (s.codeHash === a.hash) {
    tx.people.markVerified(a.uuid, a.now);
    audit(tx, { userUuid: m.userUuid, actor: a.actor, now: a.now }, { [`contact_methods.${m.uuid}.verified`]: { before: false, after: true } });
    return 'verified';
  }
  tx.people.wrongCode(a.uuid);
  return { wrong: s.codeAttempts + 1 };
});

const ruleJson = (rules: NotificationRule[]) => rules.map((r) => ({ method_uuid: r.methodUuid, delay_minutes: r.delayMinutes }));
const setRules = procedure('people.setRules', (tx: Store, a: { userUuid: string; rules: NotificationRule[]; actor: AuditActor; now: number }) => {
  const mine = new Set(tx.people.methods(a.userUuid).map((m) => m.uuid));
  a.rules.forEach((r, i) => {
    if (!mine.has(r.methodUuid)) throw new AppError(400, 'validation.invalid', `rules.${i}.method_uuid: ${r.methodUuid} is not one of this person's contact methods`);
  });
  const before = tx.people.rules(a.userUuid);
  tx.people.replaceRules(a.userUuid, a.rules);
  const after = tx.people.rules(a.userUuid);
  if (JSON.stringify(before) !== JSON.stringify(after)) audit(tx, a, { notification_rules: { before: ruleJson(before), after: ruleJson(after) } });
  return after;
});

const setProfile = procedure('people.setProfile', (tx: Store, a: { userUuid: string; name?: string | undefined; phone?: string | null | undefined; actor: AuditActor; now: number }) => {
  const before = tx.people.member(a.userUuid);
  if (!before) throw new AppError(404, 'team_members.not_found', `team member ${a.userUuid} not found`);
  if (a.name !== undefined) tx.people.setName(a.userUuid, a.name);
  if (a.phone !== undefined) tx.people.setPhone(a.userUuid, a.phone);
  const after = tx.people.member(a.userUuid)!;
  const diff: AuditDiff = {};
  if (before.name !== after.name) diff.name = { before: before.name, after: after.name };
  if (before.phone !== after.phone) diff.phone = { before: before.phone, after: after.phone };
  audit(tx, a, diff);
  return after;
});

const removeMethod = procedure('people.removeMethod', (tx: Store, a: { uuid: string; actor: AuditActor; now: number }) => {
  const m = tx.people.method(a.uuid);
  if (!m) return false;
  tx.people.deleteMethod(a.uuid);
  audit(tx, { userUuid: m.userUuid, actor: a.actor, now: a.now }, { [`contact_methods.${m.uuid}`]: { before: audited(m) } });
  return true;
});
const relabel = procedure('people.relabel', (tx: Store, a: { uuid: string; label: string; now: number; actor: AuditActor }) => {
  const before = tx.people.method(a.uuid);
  if (!before || !tx.people.setLabel(a.uuid, a.label, a.now)) return null;
  if (before.label !== a.label) audit(tx, { userUuid: before.userUuid, actor: a.actor, now: a.now }, { [`contact_methods.${a.uuid}.label`]: { before: before.label, after: a.label } });
  return tx.people.method(a.uuid)!;
});

/**
 * Team members and their contact methods (issue 34 point 1): profiles (name, phone), contact methods
 * with their addresses sealed by the SecretBox (as integration secrets are), verification by a
 * 6-digit code sent through the method itself, notification rules, and paging ({@link pagesService}).
 * Who may change whose methods is the HTTP layer's decision (a person their own, admins anyone's);
 * every function here takes the person's uuid.
 */
export function peopleService(deps: { store: Store; clock: Clock; logger: Logger; secrets: SecretBox | undefined; sender: PersonSender | undefined; consolePager: ConsolePager }) {
  const { store, clock, logger } = deps;
  const box = (): SecretBox => {
    if (!deps.secrets) throw new AppError(503, 'contact_methods.unavailable', 'contact methods need the secret key, which is not loaded here');
    return deps.secrets;
  };
  const pages = pagesService({ store, clock, logger, box, sender: deps.sender, consolePager: deps.consolePager });

  /** A method of `userUuid` (404 when it is someone else's: their existence is not told). */
  async function methodOf(userUuid: string, uuid: string): Promise<ContactMethod> {
    const m = await store.async.people.method(uuid);
    if (!m || m.userUuid !== userUuid) throw notFound(`contact method ${uuid}`);
    return m;
  }

  const api = {
    ...pages,
    /** Every console user as a team member (name, email, phone, role), by name. */
    members: (): Promise<TeamMemberRow[]> => store.async.people.members(),
    /** @throws AppError 404 `team_members.not_found` */
    async member(uuid: string): Promise<TeamMemberRow> {
      const m = await store.async.people.member(uuid);
      if (!m) throw new AppError(404, 'team_members.not_found', `team member ${uuid} not found`);
      return m;
    },
    /**
     * Sets a person's display name and/or phone (`null` removes it; normalized to E.164).
     * @throws AppError 400 `validation.invalid` naming `phone`; 404 `team_members.not_found`
     */
    async setProfile(userUuid: string, p: { name?: string | undefined; phone?: string | null | undefined }, actor: AuditActor): Promise<TeamMemberRow> {
      let phone = p.phone;
      if (typeof phone === 'string') {
        const n = normalizePhone(phone);
        if (!n) throw new AppError(400, 'validation.invalid', 'phone: must be a phone number with its country code, e.g. +15551234567');
        phone = n;
      }
      return store.async.tx(setProfile, { userUuid, name: p.name, phone, actor, now: clock.now() });
    },
    /**
     * Whether `actorUuid` may see and change `targetUuid`'s profile, contact methods and rules: a person
     * their own; console admins, and the installation's admin token (its user `admin@localhost`), anyone's.
     */
    async mayManage(actorUuid: string, targetUuid: string): Promise<boolean> {
      if (actorUuid === targetUuid) return true;
      const actor = await store.async.people.member(actorUuid);
      return actor?.role === 'admin' || actor?.email === ADMIN_EMAIL;
    },
    /** A person's contact methods (masked addresses only), in the order added. */
    methods: (userUuid: string): Promise<ContactMethod[]> => store.async.people.methods(userUuid),
    /** @throws AppError 404 `contact_methods.not_found` (also for another person's method) */
    method: methodOf,
    /**
     * Adds an unverified contact method and sends its code (see {@link sendCode}; a failed send leaves
     * the method, unverified, and is reported in `codeError`). A `console` method is verified at once and no code is sent.
     * @throws AppError 400 `validation.invalid` naming `address`; 404 `team_members.not_found`; 409 `contact_methods.duplicate` for a second console method; 503 without a secret key
     */
    async addMethod(userUuid: string, input: { kind: ContactKind; address: string; label?: string | undefined }, actor: AuditActor): Promise<{ method: ContactMethod; codeError: string | null }> {
      const n = normalizeAddress(input.kind, input.address);
      if (!n.ok) throw new AppError(400, 'validation.invalid', `address: ${n.reason}`);
      const uuid = newId(ID_PREFIX.contactMethod);
      const method = await store.async.tx(addMethod, { uuid, userUuid, kind: input.kind, label: input.label ?? '', sealedAddress: box().seal(n.address), hint: maskAddress(input.kind, n.address), now: clock.now(), actor });
      logger.info(`contact method added: ${input.kind} ${method.hint} for ${userUuid} (unverified)`, { method: uuid });
      let codeError: string | null = null;
      if (input.kind === 'console') return { method, codeError }; // verified already: no code
      try {
        await api.sendCode(userUuid, uuid);
      } catch (e) {
        codeError = (e as Error).message;
      }
      return { method, codeError };
    },
    /**
     * Sends a new 6-digit code to the method (valid {@link CODE_TTL_MS}; earlier codes void).
     * At most one a minute and five an hour per method.
     * @throws AppError 404; 429 `contact_methods.too_soon` / `too_many_codes`; 409 `contact_methods.verified`;
     *   502 `contact_methods.send_failed` when the provider refused (the code is stored: asking again after a minute sends a new one)
     */
    async sendCode(userUuid: string, uuid: string): Promise<void> {
      const m = await methodOf(userUuid, uuid);
      if (m.verifiedAt !== null) throw new AppError(409, 'contact_methods.verified', `contact method ${uuid} is verified already`);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await store.async.tx(storeCode, { uuid, hash: codeHash(uuid, code), now: clock.now() });
      const spoken = code.split('').join(', ');
      const result = await pages.deliver(m, {
        title: `Pharos verification code: ${code}`,
        text: `Your Pharos verification code is ${code}. Enter it on your profile to receive pages here. It expires in 10 minutes.`,
        speech: `Your Pharos verification code is ${spoken}. Again: ${spoken}.`,
        link: null,
      });
      if (result) {
        logger.warn(`verification code to ${m.kind} ${m.hint} failed: ${result}`, { method: uuid });
        throw new AppError(502, 'contact_methods.send_failed', `the code could not be sent: ${result}`);
      }
      logger.info(`verification code sent to ${m.kind} ${m.hint}`, { method: uuid });
    },
    /**
     * Verifies a method with the code sent to it. Five wrong codes void the code (429 until a new one is sent).
     * @throws AppError 400 `contact_methods.wrong_code` (attempts left in the message), `contact_methods.code_expired`,
     *   `contact_methods.no_code`; 429 `contact_methods.locked`; 404
     */
    async verify(userUuid: string, uuid: string, code: string, actor: AuditActor): Promise<ContactMethod> {
      await methodOf(userUuid, uuid);
      const out = await store.async.tx(checkCode, { uuid, hash: codeHash(uuid, code), now: clock.now(), actor });
      if (out === 'locked') throw new AppError(429, 'contact_methods.locked', `code: ${CODE_ATTEMPTS} wrong codes: ask for a new code`);
      if (out === 'none') throw new AppError(400, 'contact_methods.no_code', 'code: no code was sent to this method: ask for one');
      if (out === 'expired') throw new AppError(400, 'contact_methods.code_expired', 'code: the code expired: ask for a new one');
      if (typeof out === 'object') {
        const left = CODE_ATTEMPTS - out.wrong;
        if (left <= 0) throw new AppError(429, 'contact_methods.locked', `code: ${CODE_ATTEMPTS} wrong codes: ask for a new code`);
        throw new AppError(400, 'contact_methods.wrong_code', `code: not the code sent (${left} attempt${left === 1 ? '' : 's'} left)`);
      }
      const m = await methodOf(userUuid, uuid);
      if (out === 'verified') logger.info(`contact method verified: ${m.kind} ${m.hint}`, { method: uuid });
      return m;
    },
    /** Renames a method. @throws AppError 404 */
    async setLabel(userUuid: string, uuid: string, label: string, actor: AuditActor): Promise<ContactMethod> {
      await methodOf(userUuid, uuid);
      const m = await store.async.tx(relabel, { uuid, label, now: clock.now(), actor });
      if (!m) throw notFound(`contact method ${uuid}`);
      return m;
    },
    /** Deletes a method and the rules that name it. @throws AppError 404 */
    async removeMethod(userUuid: string, uuid: string, actor: AuditActor): Promise<void> {
      await methodOf(userUuid, uuid);
      await store.async.tx(removeMethod, { uuid, actor, now: clock.now() });
    },
    /** A person's notification rules in order (empty: every verified method at once). */
    rules: (userUuid: string): Promise<NotificationRule[]> => store.async.people.rules(userUuid),
    /** Replaces a person's rules. @throws AppError 400 naming `rules.<i>.method_uuid` for a method not theirs */
    setRules: (userUuid: string, rules: NotificationRule[], actor: AuditActor): Promise<NotificationRule[]> => store.async.tx(setRules, { userUuid, rules, actor, now: clock.now() }),
    /** Whether the provider integration a kind needs is configured (console hints). */
    async providerReady(kind: ContactKind): Promise<boolean> {
      return (await providerFor(store, box, kind)) !== null || kind === 'ntfy';
    },
  };
  return api;
}

/** The people service's interface. */
export type PeopleService = ReturnType<typeof peopleService>;
