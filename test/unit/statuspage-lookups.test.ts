import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statuspagesService } from '../../src/core/statuspages.ts';
import { EventBus } from '../../src/core/events.ts';
import { PageRenderCache } from '../../src/http/pages/cache.ts';
import type { Statuspage } from '../../src/domain/statuspage.ts';
import type { Store } from '../../src/store/index.ts';
import { ManualClock } from '../support/manual-clock.ts';

// The Host lookup every request goes through (core/statuspages.ts byHost) and the render cache
// (http/pages/cache.ts) answer asynchronously (issue 31): concurrent callers share one read or
// render in flight, and a read that started before a change is not remembered after it.

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

/** A store whose asynchronous byHostname answers when the test says so, counting the reads. */
function fakeStore() {
  const reads: Array<{ host: string; answer: (p: Statuspage | undefined) => void }> = [];
  const statuspages = {
    byHostname: (host: string) => {
      const d = deferred<Statuspage | undefined>();
      reads.push({ host, answer: d.resolve });
      return d.promise;
    },
    bySubdomain: async () => undefined,
  };
  return { store: { async: { statuspages } } as unknown as Store, reads };
}

const page = (uuid: string) => ({ uuid, name: uuid }) as unknown as Statuspage;

test('concurrent lookups of one host share one read; the answer is remembered 1 s', async () => {
  const clock = new ManualClock(1_000_000);
  const { store, reads } = fakeStore();
  const sp = statuspagesService({ store, clock, bus: new EventBus() });
  const all = Array.from({ length: 20 }, () => sp.byHost('status.acme.test:443', 'pharos.test'));
  assert.equal(reads.length, 1, 'one read in flight for the host');
  reads[0]!.answer(page('sp_a'));
  for (const got of await Promise.all(all)) assert.equal(got?.uuid, 'sp_a');
  assert.equal((await sp.byHost('STATUS.acme.test', 'pharos.test'))?.uuid, 'sp_a', 'from memory: case and port ignored');
  assert.equal(reads.length, 1);
  await clock.advance(1_000);
  const again = sp.byHost('status.acme.test', 'pharos.test');
  assert.equal(reads.length, 2, 'read again after 1 s');
  reads[1]!.answer(undefined);
  assert.equal(await again, undefined);
});

test('a read in flight during a change (here or relayed) is handed to its waiters but not remembered', async () => {
  const clock = new ManualClock(1_000_000);
  const bus = new EventBus();
  const { store, reads } = fakeStore();
  const sp = statuspagesService({ store, clock, bus });
  const before = sp.byHost('status.acme.test', 'pharos.test');
  bus.emit('statuspage.content', { kind: 'statuspage', uuid: 'sp_a' });
  const after = sp.byHost('status.acme.test', 'pharos.test');
  assert.equal(reads.length, 2, 'a lookup after the change does not join the older read');
  reads[0]!.answer(undefined);
  reads[1]!.answer(page('sp_a'));
  assert.equal(await before, undefined);
  assert.equal((await after)?.uuid, 'sp_a');
  assert.equal((await sp.byHost('status.acme.test', 'pharos.test'))?.uuid, 'sp_a', 'the newer answer is the one remembered');
  assert.equal(reads.length, 2);
});

test('a failed read rejects its waiters and is not remembered', async () => {
  const clock = new ManualClock(1_000_000);
  let n = 0;
  const store = { async: { statuspages: { byHostname: async () => (n++ === 0 ? Promise.reject(new Error('down')) : page('sp_b')), bySubdomain: async () => undefined } } } as unknown as Store;
  const sp = statuspagesService({ store, clock });
  await assert.rejects(Promise.all([sp.byHost('x.test', 'pharos.test'), sp.byHost('x.test', 'pharos.test')]), /down/);
  assert.equal((await sp.byHost('x.test', 'pharos.test'))?.uuid, 'sp_b');
});

test('the render cache: concurrent misses of one key wait for one render', async () => {
  const clock = new ManualClock(1_000_000);
  const cache = new PageRenderCache(new EventBus(), clock);
  const d = deferred<{ body: string; contentType: string }>();
  let renders = 0;
  const render = () => (renders++, d.promise);
  const all = Array.from({ length: 10 }, (_, i) => cache.get('page|24h', `nonce${i}`, render));
  d.resolve({ body: 'hello', contentType: 'text/plain' });
  const entries = await Promise.all(all);
  assert.equal(renders, 1);
  assert.equal(cache.renders, 1);
  assert.ok(entries.every((e) => e === entries[0] && e.nonce === 'nonce0'), 'one entry, with the nonce it was rendered with');
  await assert.rejects(cache.get('other', 'n', () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal((await cache.get('other', 'n', () => ({ body: 'ok', contentType: 'text/plain' }))).body.toString(), 'ok', 'a failed render keeps nothing');
});
