import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatUptime, uptimeFigure, uptimePercent, uptimeSpan, uptimeSpanOf } from '../../../src/domain/uptime.ts';

// A seeded generator: a failing run names its seed and repeats.
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s % n;
  };
}

/** The definition written the slow way: every millisecond of [from, to) is down when an outage covers it (ongoing ones up to `now`) and no maintenance window does. */
function reference(outages: Array<{ startAt: number; endAt: number | null }>, maintenance: Array<{ startAt: number; endAt: number | null }>, from: number, to: number, now: number): number {
  let down = 0;
  for (let t = from; t < to; t++) {
    const out = outages.some((o) => o.startAt <= t && t < (o.endAt ?? Math.max(o.startAt, Math.min(now, to))));
    const held = maintenance.some((m) => m.startAt <= t && t < (m.endAt ?? to));
    if (out && !held) down++;
  }
  return Math.floor(((to - from - down) * 10_000) / (to - from)) / 100;
}

test('uptime agrees with the millisecond-by-millisecond reference on 300 random histories', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const r = rng(seed);
    const span = () => {
      const a = r(5000);
      return { startAt: a, endAt: r(4) === 0 ? null : a + 1 + r(1500) };
    };
    const outages = Array.from({ length: r(6) }, span);
    const maintenance = Array.from({ length: r(3) }, span);
    const from = r(3000);
    const to = from + 1 + r(3000);
    const now = from + r(4000);
    assert.equal(uptimePercent(outages, maintenance, from, to, now), reference(outages, maintenance, from, to, now), `seed ${seed}`);
  }
});

test('labelled windows end now, never start before creation; pending before the first check', () => {
  const H = 3_600_000;
  const now = 1000 * H;
  assert.deepEqual(uptimeSpan('24h', 0, now), { from: now - 24 * H, to: now });
  assert.deepEqual(uptimeSpan('30d', now - 3 * H, now), { from: now - 3 * H, to: now }, 'a 3-hour-old monitor: its life');
  assert.deepEqual(uptimeSpanOf(7 * 24 * H, now - 3 * H, now), { from: now - 3 * H, to: now }, 'any length (a badge\'s ?days=7)');
  const h = { outages: [{ startAt: now - 2 * H, endAt: now - H }], maintenance: [], createdAt: now - 4 * H, checked: true };
  const fig = uptimeFigure('24h', h, now);
  assert.deepEqual([fig.label, fig.percent], ['24 h', 75], '1 h down of a 4 h life');
  assert.equal(uptimeFigure('24h', { ...h, checked: false }, now).percent, null);
  assert.deepEqual([formatUptime(null), formatUptime(99.5), formatUptime(100)], ['pending', '99.50 %', '100.00 %']);
  const held = uptimeFigure('24h', { ...h, maintenance: [{ startAt: now - 2 * H, endAt: now - 1.5 * H }] }, now);
  assert.equal(held.percent, 87.5, 'maintenance is not downtime: 30 min of 4 h');
});

test('one number, one function: no percentage of up time is computed outside src/domain/report.ts', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
  // The shapes an uptime formula takes: ×10,000 then ÷ for 2 decimals, 100 × (1 − …), a share of passing checks.
  const formula = /\* 10_?000\) \/|100 \* \(1 -|\(checks - failures\)/;
  const found = [...files('src'), ...files('views')].filter((f) => f !== join('src', 'domain', 'report.ts') && formula.test(readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], 'compute uptime with src/domain/uptime.ts (uptimePercent, uptimeFigure) or report.ts (percentUp)');
});
