import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LANGUAGE_NAMES, UI_STRINGS, type UiKey } from '../../../views/i18n/index.ts';
import { en } from '../../../views/i18n/en.ts';
import { PAGE_LANGUAGES } from '../../../src/domain/statuspage.ts';
import { LANGUAGES } from '../../../src/domain/localized.ts';

// Every page language has every UI string of the English reference, with the same placeholders
// (issue 35 point 4 added es, it, pt, ja, zh: 12 page languages). Plural forms follow
// Intl.PluralRules, as views/status-page.tsx chooses them: `one` → `*_one`, any other category →
// the plain key; a language without `one` (ja, zh) never shows `*_one`.
const keys = Object.keys(en) as UiKey[];
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('12 page languages, each a LocalizedText key with strings and a name in itself', () => {
  assert.deepEqual([...PAGE_LANGUAGES], ['en', 'fr', 'de', 'ru', 'nl', 'pl', 'sv', 'es', 'it', 'pt', 'ja', 'zh']);
  for (const l of PAGE_LANGUAGES) {
    assert.ok((LANGUAGES as readonly string[]).includes(l), `${l} is a LocalizedText key`);
    assert.ok(UI_STRINGS[l], `${l} has UI strings`);
    assert.ok(LANGUAGE_NAMES[l], `${l} has a name`);
  }
  assert.deepEqual(Object.keys(UI_STRINGS).sort(), [...PAGE_LANGUAGES].sort());
});

test('every language has every key, non-empty, with the placeholders of English', () => {
  for (const l of PAGE_LANGUAGES) {
    const t = UI_STRINGS[l];
    assert.deepEqual(Object.keys(t).sort(), [...keys].sort(), `${l}: the keys of en.ts`);
    for (const k of keys) {
      assert.ok(t[k].trim() !== '', `${l}.${k} is empty`);
      assert.deepEqual(placeholders(t[k]), placeholders(en[k]), `${l}.${k}: placeholders`);
    }
  }
});

test('the new languages are translated, not copies of English', () => {
  for (const l of ['es', 'it', 'pt', 'ja', 'zh'] as const) {
    const same = keys.filter((k) => UI_STRINGS[l][k] === en[k] && !/^(channel_(slack|teams|sms)|powered_by|password_label)$/.test(k));
    assert.deepEqual(same, [], `${l}: left in English`);
  }
});

test('plural forms by Intl.PluralRules: `one` where the language has it; ja and zh only `other`', () => {
  for (const l of PAGE_LANGUAGES) {
    const cats = new Intl.PluralRules(l).resolvedOptions().pluralCategories;
    const t = UI_STRINGS[l];
    if (!cats.includes('one')) assert.equal(t.services_count_one, t.services_count, `${l} has no 'one': both keys read the same`);
  }
  for (const l of ['ja', 'zh']) assert.deepEqual(new Intl.PluralRules(l).resolvedOptions().pluralCategories, ['other']);
  for (const l of ['es', 'it', 'pt'] as const) {
    assert.equal(new Intl.PluralRules(l).select(1), 'one');
    assert.equal(new Intl.PluralRules(l).select(3), 'other');
    assert.notEqual(UI_STRINGS[l].services_count_one, UI_STRINGS[l].services_count, `${l}: singular and plural differ`);
  }
});
