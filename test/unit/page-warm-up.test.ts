import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warmUpPageRender } from '../../src/http/pages/warm-up-render.ts';
import { ManualClock } from '../support/manual-clock.ts';

test('the warm-up renders a whole 50-service status page: bars, graphs, the banner', () => {
  const clock = new ManualClock(Date.parse('2026-11-24T12:00:00Z'));
  const html = warmUpPageRender(clock).toString('utf8');
  assert.match(html, /^<!DOCTYPE html>/i);
  for (let i = 0; i < 50; i++) assert.ok(html.includes(`>Service ${i}<`), `service ${i} shown`);
  assert.equal(html.match(/<span class="bar /g)?.length, 50 * 90, '90 daily bars per service');
  assert.equal(html.match(/<svg /g)?.length, 50, 'one response-time graph per service');
  assert.match(html, /data-overall="partial_outage"/);
});

test('the warm-up carries no state over: a second run at the same moment renders the same page but for the nonce', () => {
  const clock = new ManualClock(Date.parse('2026-11-24T12:00:00Z'));
  const strip = (b: Buffer) => b.toString('utf8').replace(/nonce="[^"]*"/g, '');
  assert.equal(strip(warmUpPageRender(clock)), strip(warmUpPageRender(clock)));
});
