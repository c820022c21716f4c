import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';

// Issue 36: the monitor form's "Depends on" picker (views/console/picker.tsx), without JavaScript:
// the chosen monitors post as `depends_on`, unticking every one clears them, the API's 400 shows
// beside the field, and "Search" (by GET) finds monitors to tick.

let p: TestPharos;
let admin: ConsoleClient;
before(async () => {
  p = await startTestPharos({}, new ManualClock());
  admin = await setupAdmin(p);
});
after(() => p.cleanup());

const base = { name: 'app', url: 'https://app.example.com/', protocol: 'http', check_frequency: '30', timeout: '10', alerts_wait: '0', regions: 'london', 'http.http_method': 'GET', 'http.expected_status_code': '2xx', depends_on_form: '1' };

test('the monitor form picks dependencies, clears them, shows the 400 beside the field, and searches without JavaScript', async () => {
  const router = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'core-router', url: 'https://router.example.com/' } })).json();
  const blank = await admin.get('/monitors/new');
  assert.match(blank.html, /Depends on/);
  assert.match(blank.html, /name="depends_on_form"/);

  const created = await admin.post('/monitors', { ...base, depends_on: router.uuid });
  assert.equal(created.status, 303, /class="alert[^"]*"[^>]*>([^<]*)/.exec(created.html)?.[1] ?? created.html.match(/field-error[^>]*>[^<]*/g)?.join(" "));
  const uuid = created.headers.get('location')!.split('/').pop()!;
  const m = await (await p.api(`/v1/monitors/${uuid}`)).json();
  assert.deepEqual(m.depends_on, [router.uuid]);

  // The monitor page names what it depends on.
  const shown = await admin.get(`/monitors/${uuid}`);
  assert.match(shown.html, /Depends on/);
  assert.match(shown.html, /core-router/);

  const edit = await admin.get(`/monitors/${uuid}/edit`);
  assert.match(edit.html, new RegExp(`name="depends_on" value="${router.uuid}" checked`));
  assert.match(edit.html, /core-router/);

  // JavaScript off: "Search" submits the form by GET; the matches come back as checkboxes to tick.
  const search = await admin.get(`/monitors/${uuid}/edit?pick=depends_on&pick_q_depends_on=core&name=app`);
  assert.equal(search.status, 200);
  assert.match(search.html, /core-router/);

  // Itself: the API's message beside the picker.
  const refused = await admin.post(`/monitors/${uuid}`, { ...base, depends_on: uuid });
  assert.equal(refused.status, 400);
  assert.match(refused.html, /cannot depend on itself/);

  // Nothing ticked: cleared.
  assert.equal((await admin.post(`/monitors/${uuid}`, base)).status, 303);
  assert.deepEqual((await (await p.api(`/v1/monitors/${uuid}`)).json()).depends_on, []);
});
