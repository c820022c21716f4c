import { z } from 'zod';

/**
 * Tags and groups (issue 33 point 5), after Uptime Kuma's: a tag is a stored name with a colour; a
 * monitor carries any number of tags, each optionally with a value (Kuma's `env:prod`), written
 * `name` or `name:value` in the API. A group is a plain name a monitor belongs to (at most one),
 * used to group rows.
 */

/** A tag as stored (`/v1/tags`). Times epoch ms. */
export interface Tag {
  id: number;
  /** `tag_<22 base62>`. */
  uuid: string;
  name: string;
  /** `#rrggbb`, lower case. */
  color: string;
  createdAt: number;
  updatedAt: number;
}

/** A tag on a monitor as a client names it: the tag's name and a value (`''`: none). */
export interface TagRef {
  name: string;
  value: string;
}

/** A tag on a monitor as read back: {@link TagRef} plus the tag's colour. */
export interface MonitorTag extends TagRef {
  color: string;
}

/** Most tags one monitor may carry. */
export const MAX_TAGS_PER_MONITOR = 20;

/** A tag name: letters, digits, space and `_ . - /`, starting with a letter or digit; 1 to 40 characters. No `:` (it splits name and value) nor `,` (the console's list separator). */
const NAME_RE = /^[\p{L}\p{N}][\p{L}\p{N} _./-]*$/u;
/** A tag value: up to 100 characters, no `,` and no control characters. */
const VALUE_RE = /^[^,\p{Cc}]*$/u;
/** A colour: `#rrggbb`. */
const COLOR_RE = /^#[0-9a-fA-F]{6}$/;

/** Zod schema of a tag name (trimmed). */
export const TagName = z
  .string({ error: 'is required and must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(40, 'must be at most 40 characters')
  // refine, not regex: a Unicode-class pattern does not carry over to the OpenAPI document.
  .refine((v) => NAME_RE.test(v), 'may hold letters, digits, spaces and _ . - / only, starting with a letter or digit')
  .meta({ description: 'letters, digits, spaces and _ . - /, starting with a letter or digit; unique whatever the case' });

/** Zod schema of a tag colour: `#rrggbb` (stored lower case). */
export const TagColor = z
  .string({ error: 'must be a colour #rrggbb' })
  .trim()
  .regex(COLOR_RE, 'must be a colour #rrggbb')
  .transform((s) => s.toLowerCase());

/** Zod schema of a group name: 1 to 100 characters (trimmed), no control characters; `null` or `""`: no group. */
export const GroupName = z
  .string({ error: 'must be a string or null' })
  .trim()
  .max(100, 'must be at most 100 characters')
  .refine((v) => !/\p{Cc}/u.test(v), 'must not hold control characters')
  .nullable()
  .transform((s) => (s === null || s === '' ? null : s));

/**
 * Parses `name` or `name:value` (split at the first `:`; both parts trimmed).
 * @returns the reference, or a message saying what is wrong with it
 */
export function parseTagRef(s: string): TagRef | { error: string } {
  const i = s.indexOf(':');
  const name = TagName.safeParse(i < 0 ? s : s.slice(0, i));
  if (!name.success) return { error: `tag name ${name.error.issues[0]?.message ?? 'is invalid'}` };
  const value = i < 0 ? '' : s.slice(i + 1).trim();
  if (value.length > 100) return { error: 'tag value must be at most 100 characters' };
  if (!VALUE_RE.test(value)) return { error: 'tag value must not hold "," or control characters' };
  return { name: name.data, value };
}

/** `name` or `name:value`, as the API writes a tag on a monitor. */
export const formatTagRef = (t: TagRef): string => (t.value === '' ? t.name : `${t.name}:${t.value}`);

/** The key tag names are unique by (case-insensitive: `Prod` and `prod` are one tag). */
export const tagKey = (name: string): string => name.toLowerCase();

/**
 * Zod schema of a monitor's `tags` field: an array of `name` / `name:value` strings, at most
 * {@link MAX_TAGS_PER_MONITOR}, duplicates dropped (first spelling kept).
 */
export const MonitorTagsField = z
  .array(z.string({ error: 'must be an array of strings "name" or "name:value"' }), { error: 'must be an array of strings "name" or "name:value"' })
  .max(MAX_TAGS_PER_MONITOR, `must hold at most ${MAX_TAGS_PER_MONITOR} tags`)
  .transform((list, ctx) => {
    const out: TagRef[] = [];
    const seen = new Set<string>();
    for (const s of list) {
      const r = parseTagRef(s);
      if ('error' in r) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(s.slice(0, 60))}: ${r.error}` });
        return z.NEVER;
      }
      const k = `${tagKey(r.name)}\u0000${r.value}`;
      if (!seen.has(k)) out.push(r);
      seen.add(k);
    }
    return out;
  });

/** Colours a tag made on the fly (named on a monitor before it was created) gets, by its name. */
const PALETTE = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#059669'] as const;

/** The colour of a tag created on the fly: one of ten, chosen by its name (stable across runs). */
export function defaultTagColor(name: string): string {
  let h = 0;
  for (const ch of tagKey(name)) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
}

/**
 * The text colour readable on background `#rrggbb`: black or white, whichever contrasts more (WCAG
 * 2 contrast ratio; at least 4.58:1 for any background, so axe-core's 4.5:1 always passes).
 */
export function readableTextColor(background: string): '#000000' | '#ffffff' {
  const l = luminance(background);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}
