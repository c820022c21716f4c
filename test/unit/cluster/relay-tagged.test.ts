import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relayChanges } from '../../../src/cluster/relay.ts';
import { EventBus } from '../../../src/core/events.ts';
import type { Core } from '../../../src/core/index.ts';
import type { Cluster } from '../../../src/cluster/types.ts';
import type { ClusterChange } from '../../../src/domain/cluster.ts';
import { silentLogger } from '../../../src/lib/logger.ts';

// Issue 33 point 5: a bulk "add tag" (or a tag renamed, recoloured, deleted) on one instance redraws
// the rows of every instance's live console: `monitor.tagged` crosses the cluster in messages of at
// most 100 uuids (a NOTIFY payload stays under 8000 bytes), is announced on the others' buses, and
// does not bounce back.
test('monitor.tagged is relayed in messages of at most 100 uuids, announced on the other instance, not sent back', async () => {
  const published: ClusterChange[] = [];
  let deliver: (c: ClusterChange) => void = () => undefined;
  const cluster = { publish: (c: ClusterChange) => published.push(c), onChange: (fn: (c: ClusterChange) => void) => ((deliver = fn), () => undefined) } as unknown as Cluster;
  const bus = new EventBus();
  const stop = relayChanges({ core: { bus } as unknown as Core, cluster, logger: silentLogger });

  const uuids = Array.from({ length: 250 }, (_, i) => `mon_${String(i).padStart(22, '0')}`);
  bus.emit('monitor.tagged', { uuids });
  assert.deepEqual(
    published.map((c) => (c.kind === 'monitor.tagged' ? c.uuids.length : -1)),
    [100, 100, 50],
  );
  assert.deepEqual(published.flatMap((c) => (c.kind === 'monitor.tagged' ? c.uuids : [])), uuids);

  const heard: string[][] = [];
  bus.on('monitor.tagged', ({ uuids: u }) => heard.push(u));
  deliver({ kind: 'monitor.tagged', uuids: ['mon_a', 'mon_b'] });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(heard, [['mon_a', 'mon_b']]);
  assert.equal(published.length, 3, 'a relayed change is not published again');
  stop();
});
