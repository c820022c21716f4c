import assert from 'node:assert/strict';
import type { TestPharos } from './pharos.ts';

/**
 * The life of one monitor against a real target, over the API, on the manual clock (defaults:
 * confirmation_checks 3 = the failing check + 2 re-checks 3 s apart): created (201), first check up,
 * `breakIt()` → confirmed down with an outage whose description is `reason`, `fixIt()` → the next
 * check recovers it and resolves the outage. Every protocol's test file runs this once.
 * @returns the monitor as the API showed it after creation
 */
export async function upDownRecover(
  p: TestPharos,
  body: Record<string, unknown>,
  steps: { breakIt: () => Promise<void> | void; reason: string | RegExp; fixIt: () => Promise<void> | void },
): Promise<Record<string, unknown>> {
  const res = await p.api('/v1/monitors', { method: 'POST', json: { check_frequency: 10, ...body } });
  assert.equal(res.status, 201, await res.clone().text());
  const created = (await res.json()) as Record<string, unknown> & { uuid: string };
  const uuid = created.uuid;
  const status = async () => ((await (await p.api(`/v1/monitors/${uuid}`)).json()) as { status: string }).status;
  const outages = async () => {
    const page = await (await p.api('/v2/outages')).json();
    return page.outages.filter((o: { monitor: { uuid: string } | null }) => o.monitor?.uuid === uuid) as Array<{ uuid: string; description: string; isResolved: boolean }>;
  };
  const nextCheck = async () => {
    const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id);
    assert.ok(due !== undefined, 'the monitor has a timer');
    await p.advance(due - p.clock.now());
  };
  await nextCheck();
  assert.equal(await status(), 'up', 'first check passes');
  assert.deepEqual(await outages(), []);
  await steps.breakIt();
  await nextCheck();
  await p.advance(3_000);
  await p.advance(3_000);
  assert.equal(await status(), 'down', 'confirmed down');
  const [outage] = await outages();
  assert.ok(outage, 'an outage opened');
  if (typeof steps.reason === 'string') assert.equal(outage.description, steps.reason);
  else assert.match(outage.description, steps.reason);
  await steps.fixIt();
  await nextCheck();
  assert.equal(await status(), 'up', 'recovered');
  assert.equal((await outages())[0]!.isResolved, true);
  return created;
}
