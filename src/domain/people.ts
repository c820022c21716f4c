import { z } from 'zod';
import type { ChannelType } from './channels/index.ts';
import type { Role } from './user.ts';

/**
 * Team members, their contact methods and notification rules (issue 34 point 1), pure rules only:
 * kinds, address validation and masking, the steps of a page. No I/O, no clock.
 */

/**
 * How a person can be paged. `sms` and `voice` go through Twilio; `email` through an SMTP integration;
 * `console` to the person's open console tabs (browser notification and an in-page banner; its
 * "address" is only a name for the device, and it needs no integration and no code).
 */
export const CONTACT_KINDS = ['email', 'sms', 'voice', 'ntfy', 'pushover', 'telegram', 'console'] as const;
export type ContactKind = (typeof CONTACT_KINDS)[number];
/** The contact kinds sent through a provider integration (every kind but `console`). */
export type ProviderKind = Exclude<ContactKind, 'console'>;

/**
 * The integration kind that carries each contact kind (the provider an admin configures once:
 * Twilio's account, the SMTP server, the Pushover application, the Telegram bot, the ntfy server),
 * and the settings field the person's address replaces in it.
 */
export const PROVIDER: Record<ProviderKind, { kind: ChannelType; field: string; list: boolean }> = {
  email: { kind: 'email', field: 'to', list: true },
  sms: { kind: 'twilio', field: 'to', list: true },
  voice: { kind: 'twilio', field: 'to', list: true },
  ntfy: { kind: 'ntfy', field: 'topic', list: false },
  pushover: { kind: 'pushover', field: 'user_key', list: false },
  telegram: { kind: 'telegram', field: 'chat_id', list: false },
};

/** Verification code: 6 digits, valid this long (ms). */
export const CODE_TTL_MS = 10 * 60_000;
/** Wrong codes accepted before the code is void (a new one must be sent). */
export const CODE_ATTEMPTS = 5;
/** Least time between two codes sent to one method (ms). */
export const CODE_RESEND_MS = 60_000;
/** At most this many codes per method per {@link CODE_WINDOW_MS}. */
export const CODE_SENDS_PER_WINDOW = 5;
/** The window of {@link CODE_SENDS_PER_WINDOW} (ms): one hour. */
export const CODE_WINDOW_MS = 3_600_000;
/**
 * A claim on a page not finished this long after (ms) is taken again: the instance sending it stopped.
 * Paging is at least once by this rule, for a person's delayed steps (`pending_pages`) and for an
 * escalation send's page request (`page_requests`) alike.
 */
export const PAGE_CLAIM_STALE_MS = 5 * 60_000;
/** Longest delay a notification rule may have (minutes): one day. */
export const MAX_RULE_DELAY_MINUTES = 1440;

/** A phone number as typed (`+1 (555) 123-4567`) in E.164 (`+15551234567`), or null when it is not one. */
export function normalizePhone(raw: string): string | null {
  const compact = raw.replace(/[\s().-]/g, '');
  return /^\+[1-9]\d{6,14}$/.test(compact) ? compact : null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The stored form of an address of `kind`: phone numbers in E.164, emails trimmed; or the reason it
 * is not valid (for a 400 naming the field `address`).
 */
export function normalizeAddress(kind: ContactKind, raw: string): { ok: true; address: string } | { ok: false; reason: string } {
  const a = raw.trim();
  switch (kind) {
    case 'email':
      return EMAIL.test(a) && a.length <= 254 ? { ok: true, address: a } : { ok: false, reason: 'must be an email address' };
    case 'sms':
    case 'voice': {
      const p = normalizePhone(a);
      return p ? { ok: true, address: p } : { ok: false, reason: 'must be a phone number with its country code, e.g. +15551234567' };
    }
    case 'ntfy':
      return /^[-_A-Za-z0-9]{1,64}$/.test(a) ? { ok: true, address: a } : { ok: false, reason: 'must be an ntfy topic: 1-64 letters, digits, - _' };
    case 'pushover':
      return /^[A-Za-z0-9]{30}$/.test(a) ? { ok: true, address: a } : { ok: false, reason: 'must be a Pushover user key (30 letters and digits)' };
    case 'console':
      return a.length >= 1 && a.length <= 100 ? { ok: true, address: a } : { ok: false, reason: 'must name this device (1-100 characters), e.g. "work laptop"' };
    case 'telegram':
      return /^-?\d{1,20}$/.test(a) || /^@[A-Za-z0-9_]{5,32}$/.test(a) ? { ok: true, address: a } : { ok: false, reason: 'must be a Telegram chat id (digits) or @username' };
  }
}

/**
 * A masked address, safe for lists and logs: `a•••@example.com`, `+1•••••••67`, `tk•••9x`.
 * Phone numbers keep their first two and last two characters; nothing else of the address is shown.
 */
export function maskAddress(kind: ContactKind, address: string): string {
  if (kind === 'console') return address; // a device's name, not an address: nothing to hide
  if (kind === 'email') {
    const at = address.lastIndexOf('@');
    return `${address.slice(0, 1)}•••${address.slice(at)}`;
  }
  if (address.length <= 6) return `${address.slice(0, 1)}•••`;
  const dots = kind === 'sms' || kind === 'voice' ? '•'.repeat(Math.max(3, address.length - 4)) : '•••';
  return `${address.slice(0, 2)}${dots}${address.slice(-2)}`;
}

/** One notification rule: page through `methodUuid` `delayMinutes` after the page if it is not acknowledged. */
export interface NotificationRule {
  methodUuid: string;
  delayMinutes: number;
}

/** A contact method as the core and API see it (never its address: only the masked hint). */
export interface ContactMethod {
  uuid: string;
  userUuid: string;
  kind: ContactKind;
  label: string;
  /** Masked address ({@link maskAddress}). */
  hint: string;
  /** Epoch ms it was verified, or null (never paged while null). */
  verifiedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * The steps of a page for a person: their rules in order, keeping only rules whose method is
 * verified; with no rules at all, every verified method at once (delay 0), in the order they were added.
 */
export function pageSteps(rules: readonly NotificationRule[], methods: readonly ContactMethod[]): NotificationRule[] {
  const verified = new Set(methods.filter((m) => m.verifiedAt !== null).map((m) => m.uuid));
  if (rules.length === 0) return methods.filter((m) => verified.has(m.uuid)).map((m) => ({ methodUuid: m.uuid, delayMinutes: 0 }));
  return rules.filter((r) => verified.has(r.methodUuid));
}

/** What a page says (the caller's words): where the person acknowledges or resolves it without signing in. */
export interface PageContent {
  /** The outage the page is about (`outage_…`); pending steps of it are cancelled by this uuid. */
  outageUuid: string;
  /** One line, e.g. `DOWN: API`. */
  title: string;
  /** A few sentences. */
  text: string;
  /** Signed link that acknowledges (issue 34 point 4), if any. */
  ackUrl?: string | undefined;
  /** Signed link that resolves, if any. */
  resolveUrl?: string | undefined;
  /** Telegram inline-button callback data that acknowledges (`ack:…`, ≤ 64 bytes; core/page-links.ts), when a Telegram integration is set up. */
  telegramAck?: string | undefined;
  /** Telegram inline-button callback data that resolves (`res:…`). */
  telegramResolve?: string | undefined;
}

/** A person as the team sees them (migration 0028 adds `phone`). */
export interface TeamMemberRow {
  uuid: string;
  email: string;
  name: string;
  phone: string | null;
  role: Role;
  disabledAt: number | null;
}

/** A delayed step of a page, stored until due (migration 0028 `pending_pages`). */
export interface PendingPage {
  id: number;
  outageUuid: string;
  userUuid: string;
  methodUuid: string;
  delayMinutes: number;
  dueAt: number;
  /** The page's content as JSON (domain/people.ts PageContent). */
  page: string;
}

/** Body of a new contact method. */
export const ContactMethodCreate = z
  .object({
    kind: z.enum(CONTACT_KINDS),
    address: z.string().min(1).max(254).describe('Email, phone number (E.164 or with spaces), ntfy topic, Pushover user key, Telegram chat id, or for `console` a name for the device (verified at once: no code).'),
    label: z.string().max(100).optional(),
  })
  .strict();
/** Body of a contact method change: only its label (a new address is a new method, verified anew). */
export const ContactMethodUpdate = z.object({ label: z.string().max(100) }).strict();
/** Body of a verification. */
export const VerifyBody = z.object({ code: z.string().regex(/^\d{6}$/, 'must be the 6 digits sent') }).strict();
/** Body of PUT notification rules: the whole ordered list. */
export const RulesBody = z
  .object({
    rules: z
      .array(z.object({ method_uuid: z.string().min(1), delay_minutes: z.number().int().min(0).max(MAX_RULE_DELAY_MINUTES) }).strict())
      .max(20),
  })
  .strict();
/** Body of a profile change (name, phone). `phone: null` removes it. */
export const ProfileBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    phone: z.string().max(30).nullable().optional().describe('E.164, or with spaces and dashes (normalized); null removes it'),
  })
  .strict();
