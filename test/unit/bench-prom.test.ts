import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buckets, windowCount, windowQuantile } from '../../bench/prom.ts';

// The benches' lag figures come from these (issue #14 point 25): quantiles of a Prometheus histogram
// over a window, from two scrapes.
const scrape = (counts: number[]) =>
  ['0.001', '0.005', '0.01', '+Inf'].map((le, i) => `pharos_scheduler_lag_hist_seconds_bucket{le="${le}"} ${counts[i]}`).join('\n') + '\npharos_scheduler_lag_hist_seconds_count 0\n';

test('window quantiles count only the observations between the scrapes, interpolated inside their bucket', () => {
  const before = buckets(scrape([100, 100, 100, 100]), 'pharos_scheduler_lag_hist_seconds');
  // In the window: 90 observations ≤ 1 ms, 8 in (1, 5] ms, 2 in (5, 10] ms.
  const after = buckets(scrape([190, 198, 200, 200]), 'pharos_scheduler_lag_hist_seconds');
  assert.equal(windowCount(before, after), 100);
  assert.equal(windowQuantile(before, after, 0.5), 0.001 * (50 / 90));
  assert.equal(windowQuantile(before, after, 0.99), 0.005 + 0.005 * ((99 - 98) / 2));
  assert.ok(Number.isNaN(windowQuantile(after, after, 0.99)), 'no observation, no figure');
  const slow = buckets(scrape([190, 198, 200, 300]), 'pharos_scheduler_lag_hist_seconds');
  assert.equal(windowQuantile(before, slow, 0.99), 0.01, 'a rank in +Inf reports the highest finite bound');
});
