import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sparkline } from '../../src/core/console-view.ts';
import { startTestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';
import { httpTarget } from '../support/targets.ts';

const HOUR_MS = 3_600_000;

test('a sparkline scales each hourly mean to its eighth between the row’s smallest and largest', () => {
  assert.equal(sparkline(''), '', 'no checks, no sparkline');
  assert.equal(sparkline('100,100'), '&#9601;&#9601;', 'a flat line sits at the bottom');
  assert.equal(sparkline('100,200,300'), '&#9601;&#9605;&#9608;');
  assert.equal(sparkline('300,100'), '&#9608;&#9601;');
});

test('the overview shows a latency sparkline of the last complete hours for a checked monitor, none for an unchecked one', { timeout: 60_000 }, async () => {
  const p = await startTestPharos();
  const target = await httpTarget(200);
  after(async () => {
    await p.cleanup();
    await target.stop();
  });
  const admin = await setupAdmin(p);
  const checked = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Checked', url: target.url, check_frequency: 600 } })).json();
  const paused = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Never checked', url: target.url, paused: true } })).json();
  // Three hours of checks (every 10 min), then into the next hour so they are complete hours.
  for (let t = 0; t < 3 * HOUR_MS + HOUR_MS / 2; t += 600_000) await p.advance(600_000);
  await p.core.checks.flush();
  const html = (await admin.get('/')).html;
  const cell = (uuid: string) => new RegExp(`id="row-${uuid}"[\\s\\S]*?<td class="hide-sm spark">([^<]*)</td>`).exec(html)?.[1];
  assert.match(cell(checked.uuid) ?? 'no row', /^(?:&#96(?:0[1-9]|08);){3,4}$/, 'one block per complete hour with checks');
  assert.equal(cell(paused.uuid), '', 'no checks, no sparkline');
});
