import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plural, pluralCategory } from '../../../views/format.ts';

// Issue 33 point 11: "1 steps", "1 monitors", "every 1 minutes": one helper over Intl.PluralRules.
test('plural: singular for one, plural otherwise (0, 2, 1.5 and large counts), irregular plurals given', () => {
  assert.equal(plural(1, 'monitor'), '1 monitor');
  assert.equal(plural(0, 'monitor'), '0 monitors');
  assert.equal(plural(2, 'step'), '2 steps');
  assert.equal(plural(1.5, 'minute'), '1.5 minutes');
  assert.equal(plural(21, 'day'), '21 days', 'English has no "one" for 21');
  assert.equal(plural(1, 'policy', 'policies'), '1 policy');
  assert.equal(plural(3, 'policy', 'policies'), '3 policies');
});

test('pluralCategory follows each language: Russian 21 is "one", 5 "many"; Polish 3 "few"; French 0 "one"', () => {
  assert.equal(pluralCategory(1), 'one');
  assert.equal(pluralCategory(2), 'other');
  assert.equal(pluralCategory(21, 'ru'), 'one');
  assert.equal(pluralCategory(5, 'ru'), 'many');
  assert.equal(pluralCategory(3, 'pl'), 'few');
  assert.equal(pluralCategory(0, 'fr'), 'one');
  assert.equal(plural(0, 'service', 'services', 'fr'), '0 service');
});
