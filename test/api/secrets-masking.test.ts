import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { signIn, type ConsoleClient } from '../support/console.ts';

// Issue #30 point 4: secrets of monitors (request header values, passwords in URLs and connection
// URLs) never leave Pharos again: not to read tokens, not to viewers, not even to writers. A writer
// sends `***` back to keep the stored value. Runs on both stores (PHAROS_TEST_DRIVER=postgres).
const SECRETS = {
  header: 'hdr-SECRET-7f3a9c',
  other: 'hdr-OTHER-2b8d41',
  basic: 'url-SECRET-91c0ee',
  pg: 'pg-SECRET-5d2e77',
  my: 'my-SECRET-c41a08',
  redis: 'rd-SECRET-a9f312',
};
const ALL = Object.values(SECRETS);

let p: TestPharos;
let target: HttpTarget;
let readToken: string;
let viewer: ConsoleClient;
let editor: ConsoleClient;
const uuids: Record<string, string> = {};
const createAnswers: Record<string, string> = {};

/** Fails naming the secret when any of them appears in `body`. */
function assertNoSecret(body: string, where: string): void {
  for (const s of ALL) assert.ok(!body.includes(s), `${where} shows the secret ${s}`);
}

before(async () => {
  p = await startTestPharos();
  target = await httpTarget();
  readToken = (await p.core.users.createToken({ email: 'reader@example.com', name: 'Reader', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
  await p.core.accounts.create({ email: 'viewer@example.com', role: 'viewer', password: 'viewer password 123' }, { type: 'system', id: 'test', name: 'test' });
  await p.core.accounts.create({ email: 'editor@example.com', role: 'editor', password: 'editor password 123' }, { type: 'system', id: 'test', name: 'test' });
  viewer = await signIn(p, 'viewer@example.com', 'viewer password 123');
  editor = await signIn(p, 'editor@example.com', 'editor password 123');
  const bodies: Record<string, Record<string, unknown>> = {
    headers: { name: 'Headers', url: target.url, check_frequency: 60, request_headers: [{ name: 'Authorization', value: `Bearer ${SECRETS.header}` }, { name: 'X-Other', value: SECRETS.other }] },
    basic: { name: 'Basic', url: `http://alice:${SECRETS.basic}@127.0.0.1:9/health`, paused: true },
    pg: { name: 'PG', protocol: 'postgres', url: `postgres://app:${SECRETS.pg}@127.0.0.1:9/app`, paused: true },
    my: { name: 'MY', protocol: 'mysql', url: `mysql://app:${SECRETS.my}@127.0.0.1:9/app`, paused: true },
    redis: { name: 'RD', protocol: 'redis', url: `redis://:${SECRETS.redis}@127.0.0.1:9/0`, paused: true },
  };
  for (const [key, body] of Object.entries(bodies)) {
    const res = await p.api('/v1/monitors', { method: 'POST', json: body });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    createAnswers[key] = text;
    uuids[key] = JSON.parse(text).uuid;
  }
});
after(async () => {
  await p?.cleanup();
  await target?.stop();
});

/** The stored monitor, unmasked (what the checks use). */
const stored = (key: string) => p.core.monitors.get(uuids[key]!);

describe('masked for every reader (API JSON)', () => {
  test("the writer's own create answers show no secret", () => {
    for (const [key, text] of Object.entries(createAnswers)) assertNoSecret(text, `POST ${key}`);
  });
  for (const who of ['read', 'write'] as const) {
    test(`a ${who} token gets *** for header values, DSN passwords and basic-auth passwords`, async () => {
      const token = who === 'read' ? readToken : undefined;
      const list = await p.api('/v1/monitors', { token });
      const text = await list.text();
      assert.equal(list.status, 200);
      assertNoSecret(text, `GET /v1/monitors (${who})`);
      const monitors = JSON.parse(text) as Array<{ name: string; url: string; request_headers: Array<{ name: string; value: string }> }>;
      const byName = Object.fromEntries(monitors.map((m) => [m.name, m]));
      assert.deepEqual(byName.Headers!.request_headers, [{ name: 'Authorization', value: '***' }, { name: 'X-Other', value: '***' }]);
      assert.equal(byName.Basic!.url, 'http://alice:***@127.0.0.1:9/health', 'only the password is hidden, the rest is as given');
      assert.equal(byName.PG!.url, 'postgres://app:***@127.0.0.1:9/app');
      assert.equal(byName.MY!.url, 'mysql://app:***@127.0.0.1:9/app');
      assert.equal(byName.RD!.url, 'redis://:***@127.0.0.1:9/0');
      for (const uuid of Object.values(uuids)) {
        const one = await p.api(`/v1/monitors/${uuid}`, { token });
        assertNoSecret(await one.text(), `GET /v1/monitors/${uuid} (${who})`);
      }
    });
  }
});

describe('masked for every reader (console HTML)', () => {
  for (const who of ['viewer', 'editor'] as const) {
    test(`a ${who} sees no secret on the overview, the monitor pages and the edit forms`, async () => {
      const cl = who === 'viewer' ? viewer : editor;
      const overview = await cl.get('/');
      assert.equal(overview.status, 200);
      assertNoSecret(overview.html, `/ (${who})`);
      for (const [key, uuid] of Object.entries(uuids)) {
        for (const path of [`/monitors/${uuid}`, `/monitors/${uuid}/edit`]) {
          const res = await cl.get(path);
          assert.ok(res.status === 200 || res.status === 403, `${path}: ${res.status}`);
          assertNoSecret(res.html, `${path} (${key}, ${who})`);
        }
      }
      const page = (await cl.get(`/monitors/${uuids.headers}`)).html;
      assert.match(page, /Authorization: \*\*\*/, 'the header is listed, its value masked');
      assert.match((await cl.get(`/monitors/${uuids.pg}`)).html, /postgres:\/\/app:\*\*\*@127\.0\.0\.1:9\/app/);
    });
  }
});

describe('*** sent back keeps the stored secret', () => {
  test('PUT with the masked monitor as read keeps header values and URL passwords; the next check sends the real header', async () => {
    for (const key of Object.keys(uuids)) {
      const read = await (await p.api(`/v1/monitors/${uuids[key]}`)).json();
      const { url, request_headers, name } = read as { url: string; request_headers?: unknown; name: string };
      const res = await p.api(`/v1/monitors/${uuids[key]}`, { method: 'PUT', json: { name: `${name}!`, url, ...(request_headers ? { request_headers } : {}) } });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assertNoSecret(text, `PUT ${key} answer`);
    }
    assert.deepEqual((await stored('headers')).settings.request_headers, [{ name: 'Authorization', value: `Bearer ${SECRETS.header}` }, { name: 'X-Other', value: SECRETS.other }]);
    assert.equal((await stored('basic')).url, `http://alice:${SECRETS.basic}@127.0.0.1:9/health`);
    assert.equal((await stored('pg')).url, `postgres://app:${SECRETS.pg}@127.0.0.1:9/app`);
    assert.equal((await stored('my')).url, `mysql://app:${SECRETS.my}@127.0.0.1:9/app`);
    assert.equal((await stored('redis')).url, `redis://:${SECRETS.redis}@127.0.0.1:9/0`);
    assert.equal((await stored('pg')).name, 'PG!', 'the rest of the PUT is stored');

    const m = (await stored('headers'));
    const due = p.scheduler.nextDueAt(m.id);
    assert.ok(due !== undefined);
    const hits = target.hits;
    await p.advance(due - p.clock.now());
    assert.ok(target.hits > hits, 'the monitor was checked');
    assert.equal(target.lastRequest!.headers.authorization, `Bearer ${SECRETS.header}`);
    assert.equal(target.lastRequest!.headers['x-other'], SECRETS.other);
  });

  test('a new value replaces the stored one; *** keeps only the header of that name', async () => {
    const res = await p.api(`/v1/monitors/${uuids.headers}`, { method: 'PUT', json: { request_headers: [{ name: 'x-other', value: '***' }, { name: 'Authorization', value: 'Bearer rotated' }] } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual((await stored('headers')).settings.request_headers, [{ name: 'x-other', value: SECRETS.other }, { name: 'Authorization', value: 'Bearer rotated' }]);
    const back = await p.api(`/v1/monitors/${uuids.headers}`, { method: 'PUT', json: { request_headers: [{ name: 'Authorization', value: `Bearer ${SECRETS.header}` }, { name: 'X-Other', value: '***' }] } });
    assert.equal(back.status, 200);
  });

  test('*** with nothing stored to keep, or for another target, is refused (400 naming the field)', async () => {
    const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
      ['PUT', `/v1/monitors/${uuids.headers}`, { request_headers: [{ name: 'X-New', value: '***' }] }, /^request_headers\.0\.value: /],
      ['PUT', `/v1/monitors/${uuids.headers}`, { url: 'http://127.0.0.1:1/elsewhere', request_headers: [{ name: 'Authorization', value: '***' }] }, /^request_headers\.0\.value: .*target/],
      ['PUT', `/v1/monitors/${uuids.pg}`, { url: 'postgres://app:***@evil.example:5432/app' }, /^url: .*target/],
      ['PUT', `/v1/monitors/${uuids.pg}`, { url: 'postgres://root:***@127.0.0.1:9/app' }, /^url: /],
      ['POST', '/v1/monitors', { name: 'n', url: 'postgres://app:***@127.0.0.1:9/app', protocol: 'postgres' }, /^url: /],
      ['POST', '/v1/monitors', { name: 'n', url: 'http://127.0.0.1:9/', request_headers: [{ name: 'A', value: '***' }] }, /^request_headers\.0\.value: /],
    ];
    for (const [method, path, json, error] of cases) {
      const res = await p.api(path, { method, json });
      const body = await res.json();
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(json)}: ${JSON.stringify(body)}`);
      assert.match(body.error, error);
    }
    assert.equal((await stored('pg')).url, `postgres://app:${SECRETS.pg}@127.0.0.1:9/app`, 'nothing of a refused PUT is stored');
    assert.equal((await stored('headers')).url, target.url);
  });

  test('the console edit form posted back unchanged keeps the secrets', async () => {
    for (const key of ['headers', 'pg', 'basic']) {
      const form = (await editor.get(`/monitors/${uuids[key]}/edit`)).html;
      const values: Record<string, string | string[]> = {};
      for (const m of form.matchAll(/<input type="(?:text|number)" name="([^"]+)" value="([^"]*)"/g)) values[m[1]!] = decode(m[2]!);
      for (const m of form.matchAll(/<textarea name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) values[m[1]!] = decode(m[2]!);
      for (const m of form.matchAll(/<select name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
        const chosen = /<option value="([^"]*)" selected/.exec(m[2]!);
        if (chosen) values[m[1]!] = decode(chosen[1]!);
      }
      values.regions = [...form.matchAll(/name="regions" value="([^"]+)" checked/g)].map((m) => m[1]!);
      const res = await editor.post(`/monitors/${uuids[key]}`, values);
      assert.equal(res.status, 303, `${key}: ${res.html.slice(0, 500)}`);
    }
    assert.deepEqual((await stored('headers')).settings.request_headers, [{ name: 'Authorization', value: `Bearer ${SECRETS.header}` }, { name: 'X-Other', value: SECRETS.other }]);
    assert.equal((await stored('pg')).url, `postgres://app:${SECRETS.pg}@127.0.0.1:9/app`);
    assert.equal((await stored('basic')).url, `http://alice:${SECRETS.basic}@127.0.0.1:9/health`);
  });
});

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
