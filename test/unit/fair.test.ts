import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fairListener } from '../../src/http/fair.ts';

// Issue 21: the app's requests are started in batches per event-loop turn, so timers (due checks)
// run between batches; past the waiting bound a request is refused with 503.
test('at most perTurn requests start per turn (the rest in later turns, after timers and I/O), in order; past the bound 503', async () => {
  const started: string[] = [];
  const fair = fairListener((req) => started.push(req.url!), 2, 3);
  const req = (url: string) => ({ url, destroyed: false }) as unknown as IncomingMessage;
  const refused: number[] = [];
  const res = () => ({ destroyed: false, writeHead: (s: number) => (refused.push(s), { end() {} }) }) as unknown as ServerResponse;
  for (const u of ['a', 'b', 'c', 'd', 'e', 'f']) fair(req(u), res());
  assert.deepEqual(started, ['a', 'b'], 'two started in this turn');
  assert.deepEqual(refused, [503], 'f: the fourth waiting request is refused');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['a', 'b', 'c', 'd'], 'the next two in the next turn');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['a', 'b', 'c', 'd', 'e']);
});
