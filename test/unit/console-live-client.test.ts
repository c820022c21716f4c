import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIVE_JS } from '../../src/http/console/live-client.ts';
import { duration } from '../../views/console/outages.tsx';
import { ago } from '../../views/console/layout.tsx';

// The live script ticks durations and "… ago" in the browser; it must write them as the server does
// (one format, two places: this test holds them equal).
const client = new Function(`${LIVE_JS}; return { fmtDuration, fmtAgo };`)() as { fmtDuration(ms: number): string; fmtAgo(ms: number): string };

test("the live script's ticking cells read as the server renders them", () => {
  const samples = [-5000, 0, 499, 500, 1000, 6000, 59_499, 59_500, 60_000, 61_000, 3_599_000, 3_600_000, 3_661_000, 86_399_000, 86_400_000, 90_061_000, 40 * 86_400_000 + 1234];
  for (let i = 0; i < 500; i++) samples.push(Math.floor(Math.random() * 10 * 86_400_000));
  for (const ms of samples) {
    assert.equal(client.fmtDuration(ms), duration(ms), `duration of ${ms} ms`);
    assert.equal(client.fmtAgo(ms), ago(0, ms), `ago of ${ms} ms`);
  }
});
