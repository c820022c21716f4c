import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { warmUpWhenPagesExist } from '../../src/http/pages/warm-up.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// The start-up render of src/http/pages/warm-up.ts runs once, and only in a Pharos that has a status
// page (a Pharos without pages keeps the render's memory). Real core and API; the render is counted.
let p: TestPharos | undefined;
afterEach(async () => {
  await p?.cleanup();
  p = undefined;
});

/** Lets the warm-up's asynchronous read of the store (a round trip on PostgreSQL) and its later turn run. */
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await nextTurn();
  }
};

const createPage = async (pharos: TestPharos, subdomain: string) => {
  const res = await pharos.api('/v2/statuspages', { method: 'POST', json: { name: `Page ${subdomain}`, subdomain } });
  assert.equal(res.status, 201, await res.clone().text());
};

test('no status page: no warm-up render; the first page saved starts one, later pages no other', async () => {
  p = await startTestPharos();
  let renders = 0;
  const stop = warmUpWhenPagesExist(p.core, p.clock, silentLogger, () => renders++);
  await settle();
  assert.equal(renders, 0, 'nothing rendered without a page');
  await createPage(p, 'first');
  await settle();
  assert.equal(renders, 1, 'one render once a page exists');
  await createPage(p, 'second');
  await settle();
  assert.equal(renders, 1, 'never a second one');
  stop();
});

test('a page that exists at start: one render in a later turn, none once stopped before it', async () => {
  p = await startTestPharos();
  await createPage(p, 'there');
  let renders = 0;
  warmUpWhenPagesExist(p.core, p.clock, silentLogger, () => renders++);
  assert.equal(renders, 0, 'not inside the call: start-up goes on first');
  await settle();
  assert.equal(renders, 1);
  const stop = warmUpWhenPagesExist(p.core, p.clock, silentLogger, () => renders++);
  stop();
  await settle();
  assert.equal(renders, 1, 'stopped before its turn: not rendered');
});
