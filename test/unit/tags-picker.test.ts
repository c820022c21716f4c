import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MonitorTagsField, defaultTagColor, parseTagRef, readableTextColor } from '../../src/domain/tags.ts';
import { pickMatches, pickerModel } from '../../src/http/console/picker.ts';
import { tagColorsCss, tagColorsHref } from '../../views/console/tags.tsx';

// Issue 33 point 5: tags (name or name:value, colours) and the picker's matching, as pure rules.

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
  };
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x! + 0.05) / (y! + 0.05);
}

test('chip text is readable on every colour: at least 4.5:1 (axe-core\'s rule) over a grid of the colour cube', () => {
  let worst = Infinity;
  for (let r = 0; r < 256; r += 15) for (let g = 0; g < 256; g += 15) for (let b = 0; b < 256; b += 15) {
    const bg = `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    worst = Math.min(worst, contrast(bg, readableTextColor(bg)));
  }
  assert.ok(worst >= 4.5, `worst ${worst}`);
  assert.equal(readableTextColor('#fde047'), '#000000');
  assert.equal(readableTextColor('#1e293b'), '#ffffff');
});

test('tag references: name or name:value split at the first colon, trimmed; bad ones say why', () => {
  assert.deepEqual(parseTagRef(' env : eu:west '), { name: 'env', value: 'eu:west' });
  assert.deepEqual(parseTagRef('prod'), { name: 'prod', value: '' });
  assert.ok('error' in parseTagRef(':x'));
  assert.ok('error' in parseTagRef('a,b'));
  assert.ok('error' in parseTagRef('x:a,b'));
  assert.deepEqual(MonitorTagsField.parse(['Prod', 'prod', 'env:eu', 'env:us']), [
    { name: 'Prod', value: '' },
    { name: 'env', value: 'eu' },
    { name: 'env', value: 'us' },
  ]);
  assert.match(defaultTagColor('anything'), /^#[0-9a-f]{6}$/);
  assert.equal(defaultTagColor('Prod'), defaultTagColor('prod'));
});

test('tag colour stylesheet: only #rrggbb from the query, one rule each; the link sorts and dedupes', () => {
  assert.equal(tagColorsHref(['#B00000', '#00ff00', '#b00000', 'red']), '/_console/tag-colors.css?c=00ff00.b00000');
  const css = tagColorsCss('b00000.zzz.}body{x.00FF00');
  assert.equal(css, '.tagc-b00000{background:#b00000;color:#ffffff}\n.tagc-00ff00{background:#00ff00;color:#000000}');
});

test('picker: matches by name or tag, names starting with the text first, at most the limit; chosen ones left out', () => {
  const items = [
    { uuid: 'm1', name: 'api-payments', kind: 'http', tags: [] },
    { uuid: 'm2', name: 'payments', kind: 'http', tags: [] },
    { uuid: 'm3', name: 'db', kind: 'tcp', tags: [{ name: 'team', value: 'payments', color: '#000000' }] },
    { uuid: 'm4', name: 'web', kind: 'http', tags: [] },
  ];
  assert.deepEqual(pickMatches(items, 'PAYMENTS').items.map((x) => x.uuid), ['m2', 'm1', 'm3']);
  assert.deepEqual(pickMatches(items, 'payments', new Set(['m2']), 1), { items: [items[0]], more: true });
  assert.deepEqual(pickMatches(items, '  ').items, []);
  const m = pickerModel({ monitors: ['m4', 'gone'], pick_q_monitors: 'pay' }, 'monitors', items);
  assert.deepEqual(m.selected.map((x) => x.name), ['web', 'gone']);
  assert.deepEqual(m.matches?.map((x) => x.uuid), ['m2', 'm1', 'm3']);
  // Keyed pickers (several of one field on a page): only the one whose Search was pressed takes the values.
  assert.deepEqual(pickerModel({ uuid: 'm4', pick: 's1', pick_q_s1: 'web' }, 'uuid', items, 's0').selected, []);
  assert.deepEqual(pickerModel({ uuid: 'm4', pick: 's1', pick_q_s1: 'db' }, 'uuid', items, 's1').matches?.map((x) => x.uuid), ['m3']);
});
