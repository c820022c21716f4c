import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contrastRatio, parseHex, readableOn, textOn } from '../../../src/lib/contrast.ts';

// WCAG 2.x contrast (issue 33 point 11): a status page's chosen accent made readable as text.
test('contrast ratio: black on white is 21, a colour on itself 1, the WCAG example values', () => {
  assert.equal(contrastRatio('#000000', '#ffffff'), 21);
  assert.equal(contrastRatio('#36b27e', '#36b27e'), 1);
  assert.equal(contrastRatio('#fff', '#767676').toFixed(2), '4.54', 'the lightest grey that passes AA on white');
  assert.deepEqual(parseHex('#0af'), [0, 170, 255]);
  assert.throws(() => parseHex('red'), /not a hex colour/);
});

test('readableOn mixes toward black on light backgrounds and white on dark ones, only as far as needed', () => {
  const light = readableOn('#36b27e', ['#ffffff', '#f6f7f9']);
  assert.ok(contrastRatio(light, '#f6f7f9') >= 4.6 && contrastRatio(light, '#ffffff') >= 4.6, light);
  assert.ok(contrastRatio(light, '#ffffff') < 5.5, `not darker than needed: ${light}`);
  assert.equal(readableOn('#1d5fd1', ['#ffffff']), '#1d5fd1', 'already readable: unchanged');
  const dark = readableOn('#ff0066', ['#0f1217', '#171b22']);
  assert.ok(contrastRatio(dark, '#171b22') >= 4.6, dark);
  assert.equal(textOn('#ffcc00'), '#111418');
  assert.equal(textOn('#1a7346'), '#ffffff');
});
