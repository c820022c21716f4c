import { z } from 'zod';

/**
 * Language keys of LocalizedText (API.md §2.5); `se` and `sv` are both Swedish (CONTRACT.md
 * "Incidents"); `es it pt ja zh` as hyperping-go's `LocalizedText` carries them (`zh`: Simplified Chinese).
 */
export const LANGUAGES = ['en', 'fr', 'de', 'ru', 'nl', 'pl', 'se', 'sv', 'es', 'it', 'pt', 'ja', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

/** A text in one or more languages, e.g. `{en: "Database upgrade", de: "Datenbank-Upgrade"}`. */
export type LocalizedText = Partial<Record<Language, string>>;

/**
 * LocalizedText body schema: an object of known language keys with strings, at least one
 * (CONTRACT.md "Incidents"); an unknown key is refused naming it.
 */
export const LocalizedTextSchema = z
  .record(z.string(), z.string({ error: 'each language must hold a string' }).max(10_000, 'must be at most 10000 characters'), {
    error: `must be an object of texts by language (${LANGUAGES.join(', ')})`,
  })
  .superRefine((v, ctx) => {
    const keys = Object.keys(v);
    for (const k of keys) {
      if (!(LANGUAGES as readonly string[]).includes(k)) ctx.addIssue({ code: 'custom', path: [k], message: `unknown language "${k}" (use ${LANGUAGES.join(', ')})` });
    }
    if (keys.length === 0) ctx.addIssue({ code: 'custom', message: 'needs at least one language' });
  })
  .transform((v) => v as LocalizedText);

/**
 * The text of `t` for language `lang`: that language, else its Swedish twin (`se`/`sv`), else
 * English, else the first language given; '' for an empty text.
 */
export function localize(t: LocalizedText | null | undefined, lang: string): string {
  if (!t) return '';
  const twin = lang === 'sv' ? 'se' : lang === 'se' ? 'sv' : null;
  return t[lang as Language] ?? (twin ? t[twin] : undefined) ?? t.en ?? Object.values(t)[0] ?? '';
}
