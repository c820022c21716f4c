import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { rawDb } from '../../src/store/index.ts';

// /v2/statuspages over real HTTP with a real SQLite file.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(): Promise<TestPharos> {
  const p = await startTestPharos();
  cleanups.push(() => p.cleanup());
  return p;
}
const create = async (p: TestPharos, json: Record<string, unknown>) => {
  const res = await p.api('/v2/statuspages', { method: 'POST', json });
  assert.equal(res.status, 201, await res.clone().text());
  const body = await res.json();
  assert.equal(body.message, 'Status page created');
  return body.statuspage;
};

describe('status pages API', () => {
  test('defaults, subdomain from the name (numbered when taken), hosted subdomain and URL', async () => {
    const p = await setup();
    const a = await create(p, { name: 'Acme Status' });
    assert.match(a.uuid, /^sp_/);
    assert.equal(a.subdomain, 'acme-status');
    assert.equal(a.hostedsubdomain, 'acme-status.localhost');
    assert.equal(a.url, 'http://localhost:8080/status/acme-status');
    assert.equal(a.password_protected, false);
    assert.deepEqual(a.sections, []);
    assert.deepEqual(a.settings.languages, ['en']);
    assert.equal(a.settings.theme, 'system');
    assert.equal(a.settings.font, 'Inter');
    assert.equal(a.settings.accent_color, '#36b27e');
    assert.equal(a.settings.logo_height, '32px');
    assert.deepEqual(a.settings.subscribe, { enabled: true, email: true, slack: false, teams: false, sms: false });
    assert.deepEqual(a.settings.authentication, { password_protection: false, google_sso: false, saml_sso: false, google_allowed_domains: [], sso_connection_uuid: null, sso_connection: null });
    assert.equal((await create(p, { name: 'Acme  status!' })).subdomain, 'acme-status-2');
    const taken = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'x', subdomain: 'acme-status' } });
    assert.equal(taken.status, 409);
    const custom = await create(p, { name: 'Shop', hostname: 'Status.Shop.Example' });
    assert.equal(custom.url, 'https://status.shop.example');
    assert.equal((await p.api('/v2/statuspages', { method: 'POST', json: { name: 'y', hostname: 'status.shop.example' } })).status, 409);
  });

  test('every field round-trips; sections accept monitors, healthchecks and components; groups nest', async () => {
    const p = await setup();
    const mon = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'API', url: 'http://127.0.0.1:9/', paused: true } })).json()).uuid;
    const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'backup', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' } })).json()).healthcheck.uuid;
    const comp = (await (await p.api('/v1/components', { method: 'POST', json: { name: 'Supplier' } })).json()).uuid;
    const body = {
      name: 'Full',
      subdomain: 'Full-Page',
      website: 'https://example.com',
      description: 'All of it',
      languages: ['en', 'de', 'sv'],
      theme: 'dark',
      font: 'DM Sans',
      accent_color: '#ABC',
      auto_refresh: true,
      banner_header: false,
      logo: 'https://example.com/logo.svg',
      logo_height: '48px',
      favicon: 'https://example.com/favicon.ico',
      hide_powered_by: true,
      hide_from_search_engines: true,
      google_analytics: 'G-ABC123',
      password: 'correct horse battery',
      subscribe: { slack: true },
      authentication: { password_protection: true },
      sections: [
        { name: 'Core', services: [{ monitor_uuid: mon, name_shown: 'Public API', show_response_times: false }, { monitor_uuid: hc }] },
        { name: 'Others', services: [{ monitor_uuid: comp, is_group: true, services: [{ monitor_uuid: mon, description: 'again' }] }] },
      ],
    };
    const s = await create(p, body);
    assert.equal(s.subdomain, 'full-page');
    assert.equal(s.password_protected, true);
    assert.equal(JSON.stringify(s).includes('correct horse'), false, 'the password is never returned');
    const hash = (rawDb(p.store).prepare('SELECT password_hash AS h FROM statuspages WHERE uuid = ?').get(s.uuid) as { h: string }).h;
    assert.match(hash, /^scrypt\$32768\$/);
    assert.deepEqual(s.settings.description, { en: 'All of it' }, 'a string is the first language; answered as a localized map');
    assert.equal(s.settings.default_language, 'en');
    assert.equal(s.settings.name, 'Full');
    for (const k of ['website', 'languages', 'theme', 'font', 'accent_color', 'auto_refresh', 'banner_header', 'logo', 'logo_height', 'favicon', 'hide_powered_by', 'hide_from_search_engines', 'google_analytics'] as const) {
      assert.deepEqual(s.settings[k], body[k], k);
    }
    assert.deepEqual(s.settings.subscribe, { enabled: true, email: true, slack: true, teams: false, sms: false });
    assert.deepEqual(s.sections[0].name, { en: 'Core' });
    assert.deepEqual(s.sections[0].services[0], {
      id: mon,
      uuid: mon,
      monitor_uuid: mon,
      name: { en: 'Public API' },
      name_shown: 'Public API',
      show_uptime: true,
      show_response_times: false,
      description: null,
      is_group: false,
      services: [],
    });
    assert.deepEqual(s.sections[0].services[1].name, { en: 'backup' }, "without name_shown, the service's own name");
    assert.deepEqual(s.sections[1].services[0].services[0].description, { en: 'again' });

    const put = await p.api(`/v2/statuspages/${s.uuid}`, { method: 'PUT', json: { name: 'Renamed', theme: 'light' } });
    assert.equal(put.status, 200);
    const answer = await put.json();
    const updated = answer.statuspage;
    assert.deepEqual({ ...answer, statuspage: undefined, message: undefined }, { ...updated, statuspage: undefined, message: undefined }, 'the page also at the top level');
    assert.equal(updated.name, 'Renamed');
    assert.equal(updated.settings.theme, 'light');
    assert.equal(updated.settings.font, 'DM Sans', 'fields left out keep their values');
    assert.equal(updated.sections.length, 2, 'sections left out are kept');
    assert.equal(updated.password_protected, true, 'the password is kept');
    const replaced = (await (await p.api(`/v2/statuspages/${s.uuid}`, { method: 'PUT', json: { name: 'Renamed', sections: [] } })).json()).statuspage;
    assert.deepEqual(replaced.sections, [], 'sections given replace all');

    const incident = await p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'x' }, type: 'incident', statuspages: [s.uuid] } });
    assert.equal(incident.status, 201, 'incidents accept existing status pages');
    const list = await (await p.api('/v2/statuspages')).json();
    assert.deepEqual([list.total, list.page, list.resultsPerPage, list.hasNextPage, list.statuspages.length], [1, 0, 20, false, 1]);
    assert.deepEqual(await (await p.api(`/v2/statuspages/${s.uuid}`, { method: 'DELETE' })).json(), { message: 'Status page deleted' });
    assert.equal((await p.api(`/v2/statuspages/${s.uuid}`)).status, 404);
  });

  test('every validation rule answers 400 naming the field', async () => {
    const p = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name'],
      [{ name: 'x', subdomain: '-bad-' }, 'subdomain'],
      [{ name: 'x', subdomain: 'has space' }, 'subdomain'],
      [{ name: 'x', hostname: 'not a host' }, 'hostname'],
      [{ name: 'x', website: 'javascript:alert(1)' }, 'website'],
      [{ name: 'x', languages: ['xx'] }, 'languages.0'],
      [{ name: 'x', languages: [] }, 'languages'],
      [{ name: 'x', theme: 'sepia' }, 'theme'],
      [{ name: 'x', font: 'Comic Sans' }, 'font'],
      [{ name: 'x', accent_color: 'green' }, 'accent_color'],
      [{ name: 'x', logo_height: '32' }, 'logo_height'],
      [{ name: 'x', google_analytics: 'UA-1234' }, 'google_analytics'],
      [{ name: 'x', subscribe: { email: 'yes' } }, 'subscribe.email'],
      [{ name: 'x', authentication: { password_protection: true } }, 'password'],
      [{ name: 'x', authentication: { saml_sso: true } }, 'authentication.sso_connection_uuid'],
      [{ name: 'x', sections: [{ name: 'S', services: [{ monitor_uuid: 'mon_nope' }] }] }, 'sections.0.services.0.monitor_uuid'],
      [{ name: 'x', sections: [{ services: [] }] }, 'sections.0.name'],
      [{ name: 'x', password: 'short' }, 'password'],
    ];
    for (const [json, field] of cases) {
      const res = await p.api('/v2/statuspages', { method: 'POST', json });
      assert.equal(res.status, 400, JSON.stringify(json));
      const error = (await res.json()).error as string;
      assert.ok(error.startsWith(`${field}:`), `${JSON.stringify(json)} → ${error}`);
    }
    assert.equal((await (await p.api('/v2/statuspages')).json()).total, 0, 'nothing half-written');
  });
});
