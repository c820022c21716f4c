/**
 * Counted words in the form their number takes, by Intl.PluralRules (CLDR plural categories): one
 * place for "1 monitor" / "2 monitors" in the console, the public pages and operator notices.
 */
const pluralRules = new Map<string, Intl.PluralRules>();

/** The CLDR plural category (`one`, `few`, `many`, `other`…) of `n` in `lang`, by Intl.PluralRules (cached per language). */
export function pluralCategory(n: number, lang = 'en'): Intl.LDMLPluralRule {
  let rules = pluralRules.get(lang);
  if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(lang)));
  return rules.select(n);
}

/**
 * `n` and the word in the form its count takes: `plural(1, 'monitor')` → "1 monitor",
 * `plural(2, 'monitor')` → "2 monitors", `plural(0, 'policy', 'policies')` → "0 policies". English
 * (the console's language) unless `lang` is given; `many` defaults to `one` + "s".
 */
export function plural(n: number, one: string, many = `${one}s`, lang = 'en'): string {
  return `${n} ${pluralCategory(n, lang) === 'one' ? one : many}`;
}
