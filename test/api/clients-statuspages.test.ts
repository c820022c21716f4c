import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { arr, assertDecodes } from './clients/shapes.ts';
import { go, goWrap, py } from './clients/types.ts';
import { rawDb } from '../../src/store/index.ts';

// Status pages and their subscribers as the hosted service's clients send and read them.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(): Promise<TestPharos> {
  const p = await startTestPharos();
  cleanups.push(() => p.cleanup());
  return p;
}
const json = async (p: TestPharos, path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  return { status: res.status, body: await res.json() };
};
const monitor = async (p: TestPharos, name: string) => (await json(p, '/v1/monitors', 'POST', { name, url: 'http://127.0.0.1:9/', paused: true })).body.uuid as string;

describe('status pages (Go StatusPage, Python StatusPage)', () => {
  test('strings or maps in; localized maps out; groups without monitor_uuid; both wrappers', async () => {
    const p = await setup();
    const [api, db] = [await monitor(p, 'API'), await monitor(p, 'Database')];
    // CreateStatusPageRequest as the Terraform provider sends it: plain strings at the top level,
    // a group header without a monitor, children named by `uuid` with localized `name`/`description`.
    const created = await json(p, '/v2/statuspages', 'POST', {
      name: 'Acme',
      subdomain: 'acme',
      description: 'Everything we run',
      languages: ['en', 'de'],
      sections: [
        {
          name: 'Core',
          is_split: false,
          services: [
            { monitor_uuid: api, name_shown: 'Public API', show_uptime: true, description: 'REST and GraphQL' },
            { is_group: true, name_shown: 'Storage', services: [{ uuid: db, name: { en: 'Primary DB', de: 'Primäre DB' }, description: { en: 'Postgres', de: 'Postgres' } }] },
          ],
        },
        { name: { en: 'Others', de: 'Andere' }, services: [] },
      ],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assertDecodes(created.body, goWrap.statusPageWrite, 'Go {message, statuspage}');
    assertDecodes(created.body, py.StatusPage, 'Python StatusPage (bare)');
    const sp = created.body.statuspage;
    assert.deepEqual(sp.settings.description, { en: 'Everything we run' }, 'a string is the first language');
    assert.deepEqual([sp.settings.name, sp.settings.default_language], ['Acme', 'en']);
    assert.deepEqual(sp.sections.map((s: { name: unknown }) => s.name), [{ en: 'Core' }, { en: 'Others', de: 'Andere' }]);
    const [svc, group] = sp.sections[0].services;
    assert.deepEqual([svc.uuid, svc.name, svc.description], [api, { en: 'Public API' }, { en: 'REST and GraphQL' }]);
    assert.deepEqual([group.is_group, group.uuid, group.name], [true, null, { en: 'Storage' }]);
    assert.deepEqual([group.services[0].uuid, group.services[0].name, group.services[0].description], [db, { en: 'Primary DB', de: 'Primäre DB' }, { en: 'Postgres', de: 'Postgres' }]);

    const got = await json(p, `/v2/statuspages/${sp.uuid}`);
    assertDecodes(got.body, goWrap.statusPageOne, 'Go {statuspage}');
    assertDecodes(got.body, py.StatusPage, 'Python StatusPage');
    const page = await p.api('/status/acme');
    assert.equal(page.status, 200, 'the public page renders a group without a monitor');
    const html = await page.text();
    assert.ok(html.includes('Primary DB') && html.includes('Storage') && html.includes('Everything we run') && html.includes('Others'));
    const german = await (await p.api('/status/acme?lang=de')).text();
    assert.ok(german.includes('Primäre DB') && german.includes('Andere'), 'a localized map shows the visitor\'s language');
    assert.ok(german.includes('Everything we run'), 'a plain string shows in every language');

    // Partial PUT as the clients send it; default_language reorders the languages.
    const put = await json(p, `/v2/statuspages/${sp.uuid}`, 'PUT', { description: { en: 'All of it', de: 'Alles' }, default_language: 'de' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assertDecodes(put.body, goWrap.statusPageWrite, 'Go {message, statuspage}');
    assert.deepEqual([put.body.settings.description, put.body.settings.languages, put.body.settings.default_language, put.body.name], [{ en: 'All of it', de: 'Alles' }, ['de', 'en'], 'de', 'Acme']);
    assert.equal(put.body.sections.length, 2, 'sections left out are kept');

    const refused = await json(p, `/v2/statuspages/${sp.uuid}`, 'PUT', { authentication: { password_protection: true } });
    assert.equal(refused.status, 400, 'the merged page needs a password');
    assert.equal((await json(p, `/v2/statuspages/${sp.uuid}`)).body.settings.authentication.password_protection, false, 'nothing stored');
    const leaf = await json(p, '/v2/statuspages', 'POST', { name: 'x', sections: [{ name: 'S', services: [{ name_shown: 'no monitor' }] }] });
    assert.equal(leaf.status, 400);
    assert.match(leaf.body.error, /^sections\.0\.services\.0\.monitor_uuid: /, 'only groups may leave out monitor_uuid');
    const nested = await json(p, '/v2/statuspages', 'POST', { name: 'x', sections: [{ name: 'S', services: [{ is_group: true, services: [{ is_group: true }] }] }] });
    assert.equal(nested.status, 400);
    const badMap = await json(p, '/v2/statuspages', 'POST', { name: 'x', description: { klingon: 'x' } });
    assert.match(badMap.body.error, /^description: /);
  });

  test('?search= filters by name, subdomain or hostname; the list decodes in both clients', async () => {
    const p = await setup();
    for (const body of [{ name: 'Acme Status' }, { name: 'Shop', subdomain: 'acme-shop' }, { name: 'Blog', hostname: 'status.blog.example' }]) {
      assert.equal((await json(p, '/v2/statuspages', 'POST', body)).status, 201);
    }
    const all = await json(p, '/v2/statuspages');
    assertDecodes(all.body, goWrap.statusPageList, 'Go StatusPagePaginatedResponse');
    assertDecodes(all.body.statuspages, arr(py.StatusPage), 'Python list[StatusPage]');
    const names = async (q: string) => (await json(p, `/v2/statuspages?search=${encodeURIComponent(q)}`)).body.statuspages.map((s: { name: string }) => s.name);
    assert.deepEqual(await names('acme'), ['Acme Status', 'Shop']);
    assert.deepEqual(await names('BLOG.EX'), ['Blog']);
    assert.deepEqual(await names('%'), [], '% is a literal, not a wildcard');
    assert.equal((await json(p, '/v2/statuspages?search=acme')).body.total, 2);
  });
});

describe('status pages from the Terraform provider (numeric monitor ids in sections)', () => {
  test('create and update with the provider\'s exact body; read back as the provider does', async () => {
    const p = await setup();
    const [api, db, cache] = [await monitor(p, 'API'), await monitor(p, 'Database'), await monitor(p, 'Cache')];
    // buildMonitorIDMaps (statuspage_id_translation.go): ListMonitors, uuid <-> strconv.Itoa(m.ID).
    const maps = async () => {
      const list = (await json(p, '/v1/monitors')).body as Array<{ uuid: string; id: number }>;
      return { toId: new Map(list.map((m) => [m.uuid, String(m.id)])), toUuid: new Map(list.map((m) => [String(m.id), m.uuid])) };
    };
    // translateResponseNumericIDsToUUIDs: a digits-only service uuid becomes the monitor's mon_ uuid.
    type Svc = { uuid?: string; id?: unknown; is_group: boolean; show_uptime: boolean; show_response_times: boolean; name: Record<string, string>; services?: Svc[] };
    const readBack = (sp: { sections: Array<{ services: Svc[] }> }, toUuid: Map<string, string>) => {
      const walk = (list: Svc[]): unknown[] => list.map((s) => ({ uuid: s.uuid && /^\d+$/.test(s.uuid) ? (toUuid.get(s.uuid) ?? s.uuid) : (s.uuid ?? ''), group: s.is_group, up: s.show_uptime, rt: s.show_response_times, services: walk(s.services ?? []) }));
      return sp.sections.map((sec) => walk(sec.services));
    };
    const { toId, toUuid } = await maps();
    // mapTFToSections + translateSectionsUUIDsToNumericIDs: top level `monitor_uuid` and nested
    // `uuid` carry numeric ids as strings; a group header has neither.
    const body = (top: string, nested: string[]) => ({
      name: 'Terraform page',
      subdomain: 'tf-page',
      languages: ['en'],
      sections: [
        {
          name: 'Services',
          is_split: false,
          services: [
            { monitor_uuid: toId.get(top), name_shown: 'Public API', show_uptime: true, show_response_times: false, description: 'REST' },
            {
              is_group: true,
              name_shown: 'Storage',
              show_uptime: true,
              show_response_times: true,
              services: nested.map((u) => ({ uuid: toId.get(u), name: { en: `n-${u}` }, show_uptime: false, show_response_times: true })),
            },
          ],
        },
      ],
    });
    const sent = body(api, [db, cache]);
    assert.equal(sent.sections[0]!.services[0]!.monitor_uuid, toId.get(api));
    assert.match(String(sent.sections[0]!.services[0]!.monitor_uuid), /^\d+$/, 'the provider sends digits');
    const created = await json(p, '/v2/statuspages', 'POST', sent);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assertDecodes(created.body, goWrap.statusPageWrite, 'Go {message, statuspage}');
    const want = (top: string, nested: string[]) => [
      [
        { uuid: top, group: false, up: true, rt: false, services: [] },
        { uuid: '', group: true, up: true, rt: true, services: nested.map((u) => ({ uuid: u, group: false, up: false, rt: true, services: [] })) },
      ],
    ];
    assert.deepEqual(readBack(created.body.statuspage, toUuid), want(api, [db, cache]), 'create answer: the configured monitors');
    const uuid = created.body.statuspage.uuid as string;
    const got = await json(p, `/v2/statuspages/${uuid}`);
    assertDecodes(got.body, goWrap.statusPageOne, 'Go {statuspage}');
    assert.deepEqual(readBack(got.body.statuspage, (await maps()).toUuid), want(api, [db, cache]), 'Read: state matches the config, no drift');
    assert.equal(got.body.statuspage.sections[0].services[0].uuid, api, 'answered as the monitor uuid (the provider keeps a mon_ uuid as it is)');

    // Update with the same translation, monitors swapped.
    const put = await json(p, `/v2/statuspages/${uuid}`, 'PUT', { sections: body(cache, [api]).sections });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assertDecodes(put.body, goWrap.statusPageWrite, 'Go {message, statuspage}');
    assert.deepEqual(readBack(put.body.statuspage, toUuid), want(cache, [api]));
    assert.deepEqual(readBack((await json(p, `/v2/statuspages/${uuid}`)).body.statuspage, toUuid), want(cache, [api]));
    const html = await (await p.api('/status/tf-page')).text();
    assert.ok(html.includes('Public API') && html.includes('n-' + api), 'the public page shows the services');

    const unknown = await json(p, `/v2/statuspages/${uuid}`, 'PUT', { sections: [{ name: 'S', services: [{ is_group: true, name_shown: 'G', services: [{ uuid: '999999' }] }] }] });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /^sections\.0\.services\.0\.services\.0\.uuid: unknown monitor, healthcheck or component "999999"/);
  });
});

describe('subscribers (Go StatusPageSubscriber)', () => {
  test('add (confirmed at once), list by page and type, delete by id', async () => {
    const p = await setup();
    const sp = (await json(p, '/v2/statuspages', 'POST', { name: 'Acme', languages: ['en', 'de'] })).body.statuspage;
    const base = `/v2/statuspages/${sp.uuid}/subscribers`;
    // AddSubscriberRequest of the Go client, and the Python SDK's {email}.
    const added = await json(p, base, 'POST', { type: 'email', email: 'Ops@Example.com', language: 'de' });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assertDecodes(added.body, goWrap.subscriberAdd, 'Go {message, subscriber}');
    assertDecodes(added.body, go.Subscriber, 'the subscriber at the top level too');
    assert.deepEqual([added.body.type, added.body.email, added.body.value, added.body.language, added.body.confirmed], ['email', 'ops@example.com', 'ops@example.com', 'de', true]);
    assert.equal(typeof added.body.id, 'number', 'an integer id as the Go client reads (the Python SDK types it str: docs/api.md "Clients")');
    const py1 = await json(p, base, 'POST', { email: 'dev@example.com' });
    assert.deepEqual([py1.status, py1.body.type, py1.body.language], [201, 'email', 'en']);
    const again = await json(p, base, 'POST', { email: 'dev@example.com' });
    assert.deepEqual([again.status, again.body.id], [200, py1.body.id], 'the same address again: the same subscriber');
    const teams = await json(p, base, 'POST', { type: 'teams', teams_webhook_url: 'https://acme.webhook.office.com/webhookb2/secret-part' });
    assert.equal(teams.status, 201);
    assert.equal(teams.body.value, 'https://acme.webhook.office.com/…', 'a webhook URL is a secret: only its origin is shown');
    for (const [body, field] of [[{ type: 'sms', phone: '+1555' }, 'type'], [{ type: 'teams' }, 'teams_webhook_url'], [{ type: 'email', email: 'nope' }, 'email'], [{ email: 'a@b.co', language: 'xx' }, 'language']] as const) {
      const r = await json(p, base, 'POST', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(r.body.error.startsWith(`${field}:`), r.body.error);
    }

    // Added by an operator means confirmed: an incident on the page is queued for each of them.
    const incident = await json(p, '/v3/incidents', 'POST', { title: { en: 'Down' }, type: 'incident', statuspages: [sp.uuid] });
    assert.equal(incident.status, 201);
    const queued = rawDb(p.store).prepare("SELECT count(*) AS n FROM alerts WHERE channel LIKE 'subscriber:%'").get() as { n: number };
    assert.equal(queued.n, 3);

    for (let i = 0; i < 20; i++) await json(p, base, 'POST', { email: `user${i}@example.com` });
    const first = await json(p, base);
    assertDecodes(first.body, goWrap.subscriberList, 'Go SubscriberPaginatedResponse');
    assert.deepEqual([first.body.subscribers.length, first.body.total, first.body.hasNextPage, first.body.resultsPerPage], [20, 23, true, 20]);
    assert.deepEqual([(await json(p, `${base}?page=1`)).body.subscribers.length, (await json(p, `${base}?type=teams`)).body.total, (await json(p, `${base}?type=sms`)).body.total], [3, 1, 0]);

    const del = await json(p, `${base}/${added.body.id}`, 'DELETE');
    assert.deepEqual([del.status, del.body.message], [200, 'Subscriber removed']);
    assert.equal((await json(p, `${base}/${added.body.id}`, 'DELETE')).status, 404);
    assert.equal((await json(p, `${base}/${teams.body.uuid}`, 'DELETE')).status, 200, 'the sub_ uuid works too');
    const other = (await json(p, '/v2/statuspages', 'POST', { name: 'Other' })).body.statuspage;
    assert.equal((await json(p, `/v2/statuspages/${other.uuid}/subscribers/${py1.body.id}`, 'DELETE')).status, 404, 'another page\'s subscriber');
    assert.equal((await json(p, '/v2/statuspages/sp_nope/subscribers')).status, 404);
  });
});
