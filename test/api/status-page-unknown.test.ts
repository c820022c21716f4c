import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos } from '../support/pharos.ts';
import { httpTarget } from '../support/targets.ts';

// A page shows a monitor with no stored check result as `unknown`. The status view learns "checked"
// from the rollups it reads for the response-time graph when one of the last 24 h has checks (those
// hours' raw results are always kept), else from the stored results themselves (src/core/status-view.ts
// checkedYet): older rollups must not count once the raw results behind them were pruned.
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
const statusOf = (html: string, name: string) => new RegExp(`data-service="${name}"[\\s\\S]*?data-status="([a-z_]+)"`).exec(html)?.[1];

describe('status page: a monitor with no stored result', () => {
  test('is unknown before its first check, operational after, and unknown again when unpaused after its results were pruned', async () => {
    const target = await httpTarget(200);
    cleanups.push(() => target.stop());
    const p = await startTestPharos({ storage: { raw_retention_days: 1, prune_interval_minutes: 60 } });
    cleanups.push(() => p.cleanup());
    const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Flipper', url: `${target.url}/x`, check_frequency: 3600 } })).json();
    const page = await (await p.api('/v2/statuspages', { method: 'POST', json: { name: 'P', subdomain: 'p', sections: [{ name: 'S', services: [{ monitor_uuid: m.uuid }] }] } })).json();
    assert.ok(page.uuid);
    const show = async (range: '24h' | '7d') => statusOf(await (await fetch(`${p.url}/status/p${range === '7d' ? '?range=7d' : ''}`)).text(), 'Flipper');
    assert.equal(await show('24h'), 'unknown');
    assert.equal(await show('7d'), 'unknown');
    await p.advance(2 * HOUR); // the first check (within 10 s) and a second one
    assert.equal(await show('24h'), 'operational');
    assert.equal(await show('7d'), 'operational');

    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { paused: true } });
    await p.advance(3 * DAY);
    await p.core.pruneResults(new AbortController().signal); // raw results past the 1-day retention go; the rollups stay
    assert.equal(p.store.checks.lastCheckAt(p.store.monitors.get(m.uuid)!.id), null, 'the raw results are gone');
    await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { paused: false } });
    // The 7-day graph still has the old hours' rollups, but nothing was checked since: unknown.
    assert.equal(await show('7d'), 'unknown');
    assert.equal(await show('24h'), 'unknown');
  });
});
