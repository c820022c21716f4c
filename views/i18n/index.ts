import type { PAGE_LANGUAGES } from '../../src/domain/statuspage.ts';
import { de } from './de.ts';
import { en, type UiStrings } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { it } from './it.ts';
import { ja } from './ja.ts';
import { nl } from './nl.ts';
import { pl } from './pl.ts';
import { pt } from './pt.ts';
import { ru } from './ru.ts';
import { sv } from './sv.ts';
import { zh } from './zh.ts';

export type { UiKey, UiStrings } from './en.ts';

/** A status page language (API.md §2.9 `languages`). */
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

/** UI strings of every page language. */
export const UI_STRINGS: Readonly<Record<PageLanguage, UiStrings>> = { en, fr, de, ru, nl, pl, sv, es, it, pt, ja, zh };

/** Names of the languages in themselves, for the switcher. */
export const LANGUAGE_NAMES: Readonly<Record<PageLanguage, string>> = { en: 'English', fr: 'Français', de: 'Deutsch', ru: 'Русский', nl: 'Nederlands', pl: 'Polski', sv: 'Svenska', es: 'Español', it: 'Italiano', pt: 'Português', ja: '日本語', zh: '简体中文' };

/** `'{value} % uptime'` + `{value: '99.9'}` → `'99.9 % uptime'`; unknown placeholders stay as they are. */
export function fmt(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}
