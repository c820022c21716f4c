import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';

// Issue 33 point 11: the monitor form offers the regions that exist (the local probe's and those of
// registered agents, named after them), not the hosted service's 18 names with "london" ticked;
// a new monitor defaults to the local probe's region, as the API does. The API's accepted names stay.
let p: TestPharos;
let admin: ConsoleClient;
before(async () => {
  p = await startTestPharos({ probe: { region: 'frankfurt', agent_poll_seconds: 20 } });
  admin = await setupAdmin(p);
});
after(async () => {
  await p.cleanup();
});

/** The form's region checkboxes: value → ticked, and each label's text. */
function regionsOf(html: string): Array<{ region: string; checked: boolean; label: string }> {
  return [...html.matchAll(/<label class="check"><input type="checkbox" name="regions" value="([^"]+)"( checked="")?\/>([^]*?)<\/label>/g)].map((m) => ({ region: m[1]!, checked: !!m[2], label: m[3]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').replaceAll('&#39;', "'").trim() }));
}

test('a new monitor: only the local probe region, ticked; an agent that registers adds its region named after it; a monitor keeps its own regions', async () => {
  let regions = regionsOf((await admin.get('/monitors/new')).html);
  assert.deepEqual(regions, [{ region: 'frankfurt', checked: true, label: "frankfurt (this server's probe)" }]);

  const { token } = await p.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe', regions: ['tokyo'] }, { type: 'system', id: 'test', name: 'test' });
  const poll = await p.api('/v1/probes/poll', { method: 'POST', token, json: { agent: 'prb_tokyo12345678901234567', region: 'tokyo', name: 'tokyo-1', version: 'test', assignment: null } });
  assert.equal(poll.status, 200, await poll.clone().text());
  regions = regionsOf((await admin.get('/monitors/new')).html);
  assert.deepEqual(regions.map((r) => [r.region, r.checked]), [['frankfurt', true], ['tokyo', false]]);
  assert.match(regions[1]!.label, /tokyo \(agent tokyo-1\)/);

  // A client of the hosted service still sends its names; the edit form shows them, ticked.
  const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Shop', url: 'http://127.0.0.1:9/', regions: ['frankfurt', 'paris'] } });
  assert.equal(res.status, 201);
  const uuid = (await res.json()).uuid;
  regions = regionsOf((await admin.get(`/monitors/${uuid}/edit`)).html);
  assert.deepEqual(regions.map((r) => [r.region, r.checked]), [['frankfurt', true], ['paris', true], ['tokyo', false]]);
  assert.match(regions[1]!.label, /no agent registered: checked by this server's probe/);

  // Created through the form with the default: the local probe's region.
  const created = await admin.post('/monitors', { name: 'Form', protocol: 'http', url: 'http://127.0.0.1:9/form', check_frequency: '60', timeout: '10', regions: 'frankfurt', alerts_wait: '0', http_method: 'GET', expected_status_code: '2xx' });
  assert.equal(created.status, 303, /role="alert">([^<]*)/.exec(created.html)?.[1]);
  const list = (await (await p.api('/v1/monitors')).json()) as Array<{ name: string; regions: string[] }>;
  assert.deepEqual(list.find((m) => m.name === 'Form')?.regions, ['frankfurt']);
});
