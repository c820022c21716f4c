import assert from 'node:assert/strict';
import type { ConsoleClient } from './console.ts';
import type { TestPharos } from './pharos.ts';

/**
 * A monitor of `protocol` made through the console's new-monitor form as a browser with JavaScript
 * off posts it (inputs named `<protocol>.<field>`), checked once on the manual clock; returns its
 * uuid and its page's HTML after that check. `fields` are the protocol's own, by API name.
 */
export async function createThroughForm(
  p: TestPharos,
  admin: ConsoleClient,
  protocol: string,
  common: { name: string; url: string; port?: string },
  fields: Record<string, string>,
): Promise<{ uuid: string; page: string }> {
  const form = (await admin.get('/monitors/new')).html;
  assert.match(form, new RegExp(`<fieldset data-protocol="${protocol}"`), `the form has a ${protocol} fieldset`);
  for (const f of Object.keys(fields)) assert.match(form, new RegExp(`name="${protocol}\\.${f}"`), `the form has ${protocol}.${f}`);
  const body: Record<string, string | string[]> = { check_frequency: '10', timeout: '2', regions: ['london'], alerts_wait: '0', escalation_policy: '', port: '', ...common, protocol };
  for (const [f, v] of Object.entries(fields)) body[`${protocol}.${f}`] = v;
  const res = await admin.post('/monitors', body);
  assert.equal(res.status, 303, res.html.slice(0, 800));
  const uuid = /\/(mon_[0-9A-Za-z]{22})$/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
  const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)!;
  await p.advance(due - p.clock.now());
  await p.core.checks.flush();
  return { uuid, page: (await admin.get(`/monitors/${uuid}`)).html };
}
