import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// Issue 33 point 5: tags with colours (Uptime Kuma's, `name` or `name:value` on a monitor) and
// groups; /v1/tags names and colours them. Runs on both stores (PHAROS_TEST_DRIVER=postgres).
let p: TestPharos;
before(async () => {
  p = await startTestPharos();
});
after(() => p.cleanup());

const json = async (path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  return { status: res.status, body: await res.json() };
};
const monitor = (name: string, extra: Record<string, unknown> = {}) => json('/v1/monitors', 'POST', { name, url: 'http://127.0.0.1:9/', paused: true, ...extra });

describe('monitor tags and group', () => {
  test('a monitor made without tags has [] and group null (clients that never send them are unaffected)', async () => {
    const m = await monitor('plain');
    assert.equal(m.status, 201);
    assert.deepEqual(m.body.tags, []);
    assert.equal(m.body.group, null);
  });

  test('tags and group are stored, read back in order, kept by a PUT that leaves them out, replaced by one that sends them', async () => {
    const m = await monitor('db-1', { tags: ['prod', 'env: eu-west ', 'db', 'prod'], group: ' Databases ' });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    assert.deepEqual(m.body.tags, ['prod', 'env:eu-west', 'db']);
    assert.equal(m.body.group, 'Databases');
    const kept = await json(`/v1/monitors/${m.body.uuid}`, 'PUT', { name: 'db-1 renamed' });
    assert.deepEqual(kept.body.tags, ['prod', 'env:eu-west', 'db']);
    assert.equal(kept.body.group, 'Databases');
    const replaced = await json(`/v1/monitors/${m.body.uuid}`, 'PUT', { tags: ['PROD'], group: '' });
    assert.deepEqual(replaced.body.tags, ['prod'], 'a tag is one whatever the case: its stored spelling is shown');
    assert.equal(replaced.body.group, null);
    const listed = (await json('/v1/monitors')).body.find((x: { uuid: string }) => x.uuid === m.body.uuid);
    assert.deepEqual(listed.tags, ['prod']);
  });

  test('bad tags and groups are 400 naming the field', async () => {
    for (const [body, field] of [
      [{ tags: 'prod' }, 'tags'],
      [{ tags: ['a,b'] }, 'tags'],
      [{ tags: [':x'] }, 'tags'],
      [{ tags: ['x'.repeat(41)] }, 'tags'],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
      [{ group: 'x'.repeat(101) }, 'group'],
      [{ group: 5 }, 'group'],
    ] as const) {
      const r = await monitor('bad', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(typeof r.body.error === 'string' && r.body.message.includes(field), `${JSON.stringify(body)} → ${r.body.message}`);
    }
  });
});

describe('/v1/tags', () => {
  test('a tag named on a monitor exists with a default colour; it can be recoloured, renamed and deleted', async () => {
    await monitor('web', { tags: ['frontend'] });
    const list = (await json('/v1/tags')).body as Array<{ uuid: string; name: string; color: string; monitors: number }>;
    const fe = list.find((t) => t.name === 'frontend')!;
    assert.match(fe.uuid, /^tag_[0-9A-Za-z]{22}$/);
    assert.match(fe.color, /^#[0-9a-f]{6}$/);
    assert.equal(fe.monitors, 1);
    const up = await json(`/v1/tags/${fe.uuid}`, 'PUT', { name: 'web', color: '#ABCDEF' });
    assert.equal(up.status, 200);
    assert.equal(up.body.color, '#abcdef');
    const mons = (await json('/v1/monitors')).body as Array<{ name: string; tags: string[] }>;
    assert.deepEqual(mons.find((m) => m.name === 'web')!.tags, ['web']);
    assert.equal((await json(`/v1/tags/${fe.uuid}`, 'DELETE')).status, 200);
    const after = (await json('/v1/monitors')).body as Array<{ name: string; tags: string[] }>;
    assert.deepEqual(after.find((m) => m.name === 'web')!.tags, []);
    assert.equal((await json(`/v1/tags/${fe.uuid}`)).status, 404);
  });

  test('create: colour #rrggbb, name unique whatever the case (409), bad input 400 naming the field', async () => {
    const made = await json('/v1/tags', 'POST', { name: 'critical', color: '#dc2626' });
    assert.equal(made.status, 201);
    assert.equal(made.body.color, '#dc2626');
    const dup = await json('/v1/tags', 'POST', { name: 'Critical' });
    assert.equal(dup.status, 409);
    assert.match(dup.body.message, /name/);
    for (const [body, field] of [
      [{ name: 'x', color: 'red' }, 'color'],
      [{ name: 'x', color: '#12345' }, 'color'],
      [{ name: '' }, 'name'],
      [{ name: 'a:b' }, 'name'],
      [{}, 'name'],
    ] as const) {
      const r = await json('/v1/tags', 'POST', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(r.body.message.includes(field), `${JSON.stringify(body)} → ${r.body.message}`);
    }
  });

  test('no token, no tags', async () => {
    const r = await p.api('/v1/tags', { method: 'POST', json: { name: 'nope' }, token: null });
    assert.equal(r.status, 401);
  });

  test('bulk add (core.tags.addTag, the overview\'s "add tag"): unknown uuids and monitors carrying it already are skipped; the picker search finds by name and by tag', async () => {
    const a = (await monitor('bulk-a', { tags: ['team:core'] })).body;
    const b = (await monitor('bulk-b')).body;
    const actor = { type: 'system', id: 'cli', name: 'test' } as const;
    const r = await p.core.tags.addTag([a.uuid, b.uuid, 'mon_unknown'], { name: 'team', value: 'core', color: '#16a34a' }, actor);
    assert.equal(r.added, 1);
    assert.equal(r.tag.name, 'team');
    assert.deepEqual((await json(`/v1/monitors/${b.uuid}`)).body.tags, ['team:core']);
    assert.deepEqual((await json(`/v1/monitors/${a.uuid}`)).body.tags, ['team:core']);
    const again = await p.core.tags.addTag([a.uuid], { name: 'urgent' }, actor);
    assert.equal(again.added, 1);
    assert.deepEqual((await json(`/v1/monitors/${a.uuid}`)).body.tags, ['team:core', 'urgent'], 'added at the end');
    assert.deepEqual((await p.core.tags.findMonitors('BULK-', 20)).map((m) => m.name), ['bulk-a', 'bulk-b']);
    assert.deepEqual((await p.core.tags.findMonitors('urgent', 20)).map((m) => m.name), ['bulk-a']);
    assert.deepEqual((await p.core.tags.findMonitors('%', 20)).map((m) => m.name), [], 'LIKE wildcards are literal');
    assert.equal((await p.core.tags.findMonitors('', 2)).length, 2);
  });

  test('the OpenAPI document shows /v1/tags and the monitor fields', async () => {
    const doc = (await (await fetch(`${p.url}/openapi.json`)).json()) as { paths: Record<string, unknown>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    assert.ok(doc.paths['/v1/tags'] && doc.paths['/v1/tags/{uuid}']);
    assert.ok(doc.components.schemas.Monitor?.properties?.tags);
    assert.ok(doc.components.schemas.Monitor?.properties?.group);
    assert.ok(doc.components.schemas.Tag);
    // Patterns there must be JSON Schema patterns (a JavaScript /…/u literal's flag leaked into them once).
    for (const name of ['Tag', 'TagCreate', 'TagUpdate']) assert.doesNotMatch(JSON.stringify(doc.components.schemas[name]), /\/u"/, name);
  });
});
