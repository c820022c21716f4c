import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';
import { samlKeys } from '../support/idp.ts';
import { CUSTOM_CSS_MAX_CHARS } from '../../src/domain/statuspage.ts';

// Issue 33 point 7: the status-page editor of the console sets everything the API can (the same
// zod schemas, errors next to the field), "Add" clicked twice creates one page, and a preview shows
// the unsaved draft to editors only.
let p: TestPharos;
let admin: ConsoleClient;
before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
});
after(() => p.cleanup());

/** The hidden fields of the form with id `id` in `html` (what a browser posts besides what is typed). */
const hiddenOf = (html: string, id: string): Record<string, string> => {
  const form = new RegExp(`<form[^>]*id="${id}"[\\s\\S]*?</form>`).exec(html);
  assert.ok(form, `form #${id}`);
  const out: Record<string, string> = {};
  for (const m of form[0].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) if (m[1] !== '_csrf') out[m[1]!] = m[2]!;
  return out;
};

describe('create', () => {
  test('"Create" clicked twice (the same form posted twice) creates one page', async () => {
    const form = await admin.get('/statuspages');
    const body = { ...hiddenOf(form.html, 'statuspage-form'), name: 'Twice Clicked', subdomain: '' };
    const first = await admin.post('/statuspages', body);
    const second = await admin.post('/statuspages', body);
    assert.equal(first.status, 303, first.html.slice(0, 300));
    assert.equal(second.status, 303, second.html.slice(0, 300));
    assert.equal(second.headers.get('location'), first.headers.get('location'), 'the second post lands on the page the first created');
    const list = await (await p.api('/v2/statuspages?search=Twice')).json();
    assert.equal(list.total, 1, `one page, not ${list.statuspages.map((x: { subdomain: string }) => x.subdomain).join(', ')}`);
    // A fresh form (a new visit) creates a new page.
    const again = await admin.post('/statuspages', { ...hiddenOf((await admin.get('/statuspages')).html, 'statuspage-form'), name: 'Twice Clicked' });
    assert.equal(again.status, 303);
    assert.equal((await (await p.api('/v2/statuspages?search=Twice')).json()).total, 2);
  });
});

const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
  const res = await p.api(path, { method: init.method ?? 'GET', ...(init.json === undefined ? {} : { json: init.json }) });
  assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
  return res.json();
};

/** Every API-settable field, non-default, as the settings form posts it. */
const fullForm = (conn: string): Record<string, string | string[]> => ({
  name: 'Acme Status',
  subdomain: 'acme-edited',
  hostname: 'status.acme.example',
  website: 'https://acme.example/',
  'description.en': 'All Acme services',
  'description.de': 'Alle Acme-Dienste',
  languages: ['en', 'de'],
  default_language: 'de',
  theme: 'dark',
  font: 'Roboto',
  accent_color: '#123abc',
  logo: 'https://acme.example/logo.svg',
  logo_height: '48px',
  favicon: 'https://acme.example/favicon.ico',
  // banner_header unticked: false
  hide_powered_by: 'on',
  auto_refresh: 'on',
  hide_from_search_engines: 'on',
  google_analytics: 'G-ABC1234',
  'footer_text.en': '© Acme Ltd',
  'footer_text.de': '© Acme GmbH',
  custom_css: '.wrap { max-width: 900px }\nfooter { color: #444 }',
  'subscribe.enabled': 'on',
  'subscribe.slack': 'on',
  'subscribe.teams': 'on',
  // email and sms unticked
  'authentication.password_protection': 'on',
  password: 'a long page password',
  'authentication.google_sso': 'on',
  'authentication.google_allowed_domains': 'acme.example, example.org',
  'authentication.saml_sso': 'on',
  'authentication.sso_connection_uuid': conn,
});

describe('settings: every API-settable field round-trips through the form', () => {
  test('what the form saves is what GET /v2/statuspages/{uuid} answers; the password is never shown; audit-logged as the person', async () => {
    const created = await api('/v2/statuspages', { method: 'POST', json: { name: 'Round Trip' } });
    const uuid = created.uuid as string;
    const conn = await api('/v1/sso-connections', { method: 'POST', json: { name: 'Acme IdP', provider: 'saml', entry_point: 'https://idp.acme.example/sso', issuer: 'https://idp.acme.example/', idp_certificate: samlKeys().cert } });
    const connUuid = conn.uuid as string;
    assert.match(connUuid, /^sso_/);
    const form = await admin.get(`/statuspages/${uuid}`);
    assert.equal(form.status, 200);
    for (const f of ['custom_css', 'footer_text.en', 'name', 'subdomain', 'hostname', 'website', 'description.en', 'languages', 'default_language', 'theme', 'font', 'accent_color', 'logo', 'logo_height', 'favicon', 'banner_header', 'hide_powered_by', 'auto_refresh', 'hide_from_search_engines', 'google_analytics', 'subscribe.enabled', 'subscribe.email', 'subscribe.slack', 'subscribe.teams', 'subscribe.sms', 'authentication.password_protection', 'password', 'authentication.google_sso', 'authentication.google_allowed_domains', 'authentication.saml_sso', 'authentication.sso_connection_uuid']) {
      assert.match(form.html, new RegExp(`name="${f.replace('.', '\\.')}"`), `the form has ${f}`);
    }
    const saved = await admin.post(`/statuspages/${uuid}`, fullForm(connUuid));
    assert.equal(saved.status, 303, saved.html.match(/role="alert">[^<]*/)?.[0] ?? saved.html.slice(0, 300));
    const got = (await api(`/v2/statuspages/${uuid}`)).statuspage;
    assert.equal(got.name, 'Acme Status');
    assert.equal(got.subdomain, 'acme-edited');
    assert.equal(got.hostname, 'status.acme.example');
    assert.equal(got.password_protected, true);
    const st = got.settings;
    assert.deepEqual(st.description, { en: 'All Acme services', de: 'Alle Acme-Dienste' });
    assert.deepEqual(st.languages, ['de', 'en']);
    assert.equal(st.default_language, 'de');
    assert.deepEqual(
      { website: st.website, theme: st.theme, font: st.font, accent_color: st.accent_color, logo: st.logo, logo_height: st.logo_height, favicon: st.favicon, banner_header: st.banner_header, hide_powered_by: st.hide_powered_by, auto_refresh: st.auto_refresh, hide_from_search_engines: st.hide_from_search_engines, google_analytics: st.google_analytics },
      { website: 'https://acme.example/', theme: 'dark', font: 'Roboto', accent_color: '#123abc', logo: 'https://acme.example/logo.svg', logo_height: '48px', favicon: 'https://acme.example/favicon.ico', banner_header: false, hide_powered_by: true, auto_refresh: true, hide_from_search_engines: true, google_analytics: 'G-ABC1234' },
    );
    assert.deepEqual(st.footer_text, { en: '© Acme Ltd', de: '© Acme GmbH' });
    assert.equal(st.custom_css, '.wrap { max-width: 900px }\nfooter { color: #444 }');
    assert.deepEqual(st.subscribe, { enabled: true, email: false, slack: true, teams: true, sms: false });
    assert.equal(st.authentication.password_protection, true);
    assert.equal(st.authentication.google_sso, true);
    assert.deepEqual(st.authentication.google_allowed_domains, ['acme.example', 'example.org']);
    assert.equal(st.authentication.saml_sso, true);
    assert.equal(st.authentication.sso_connection_uuid, connUuid);
    assert.equal(st.authentication.sso_connection.name, 'Acme IdP');
    // The form shows back what was saved (and so saving it unchanged changes nothing), never the password.
    const again = await admin.get(`/statuspages/${uuid}`);
    assert.doesNotMatch(again.html, /a long page password/);
    assert.match(again.html, /A password is set/);
    assert.match(again.html, /name="accent_color" value="#123abc"/);
    assert.match(again.html, /<option value="Roboto" selected="">/);
    // Audit: the console's save is logged as the person, like an API edit.
    const log = await api(`/v1/audit-log?resource_type=statuspage&resource_uuid=${uuid}`);
    const upd = log.entries.find((e: { action: string }) => e.action === 'update');
    assert.ok(upd, 'an update entry');
    assert.equal(upd.actor.name, 'admin@example.com');
    assert.equal(upd.diff.password?.after, '***');

    // Change the password, then remove it (protection off first: the API's rule).
    const base = fullForm(connUuid);
    assert.equal((await admin.post(`/statuspages/${uuid}`, { ...base, password: 'another long password' })).status, 303);
    const refused = await admin.post(`/statuspages/${uuid}`, { ...base, password: '', password_remove: 'on' });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /data-error-for="password">is required when authentication\.password_protection is true/);
    const { ['authentication.password_protection']: _, ...unprotected } = base;
    assert.equal((await admin.post(`/statuspages/${uuid}`, { ...unprotected, password: '', password_remove: 'on' })).status, 303);
    const after = (await api(`/v2/statuspages/${uuid}`)).statuspage;
    assert.equal(after.password_protected, false);
    assert.match((await admin.get(`/statuspages/${uuid}`)).html, /No password is set/);
  });

  test('a refused field shows the API rule next to it and keeps what was typed; nothing is stored', async () => {
    const created = await api('/v2/statuspages', { method: 'POST', json: { name: 'Rules' } });
    const res = await admin.post(`/statuspages/${created.uuid}`, { name: 'Rules renamed', accent_color: 'red', logo_height: '2000px', theme: 'light', font: 'Inter', languages: 'en', logo: 'ftp://x' });
    assert.equal(res.status, 400);
    assert.match(res.html, /data-error-for="accent_color">must be a hex colour such as #36b27e/);
    assert.match(res.html, /data-error-for="logo">must be an http\(s\) URL/);
    assert.match(res.html, /data-error-for="logo_height">must be pixels such as 32px/);
    assert.match(res.html, /name="name" value="Rules renamed"/, 'what was typed is shown again');
    const none = await admin.post(`/statuspages/${created.uuid}`, { name: 'Rules', theme: 'light', font: 'Inter', accent_color: '#36b27e', logo_height: '32px' });
    assert.equal(none.status, 400);
    assert.match(none.html, /data-error-for="languages">must name at least one language/);
    assert.equal((await api(`/v2/statuspages/${created.uuid}`)).statuspage.name, 'Rules');
    const saml = await admin.post(`/statuspages/${created.uuid}`, { name: 'Rules', theme: 'light', font: 'Inter', accent_color: '#36b27e', logo_height: '32px', languages: 'en', 'authentication.saml_sso': 'on' });
    assert.equal(saml.status, 400);
    assert.match(saml.html, /data-error-for="authentication">is required when saml_sso is true/);
    // Custom CSS: the API's size limit and rule, beside the field.
    const minimal = { name: 'Rules', theme: 'light', font: 'Inter', accent_color: '#36b27e', logo_height: '32px', languages: 'en' };
    const big = await admin.post(`/statuspages/${created.uuid}`, { ...minimal, custom_css: `body{}${' '.repeat(CUSTOM_CSS_MAX_CHARS)}` });
    assert.equal(big.status, 400);
    assert.match(big.html, new RegExp(`data-error-for="custom_css">must be at most ${CUSTOM_CSS_MAX_CHARS} characters`));
    const escape = await admin.post(`/statuspages/${created.uuid}`, { ...minimal, custom_css: 'a{}</STYLE><script>alert(1)</script>' });
    assert.equal(escape.status, 400);
    assert.match(escape.html, /data-error-for="custom_css">must not contain &quot;&lt;\/style&quot;/);
    const apiBig = await p.api(`/v2/statuspages/${created.uuid}`, { method: 'PUT', json: { custom_css: 'x'.repeat(CUSTOM_CSS_MAX_CHARS + 1) } });
    assert.equal(apiBig.status, 400, 'the same limit in the API');
  });

  test('custom CSS and the footer text reach the public page (after the page\'s own styles), never a gated page\'s wall', async () => {
    const created = await api('/v2/statuspages', { method: 'POST', json: { name: 'Styled', subdomain: 'styled' } });
    const form = { name: 'Styled', theme: 'light', font: 'Inter', accent_color: '#36b27e', logo_height: '32px', languages: 'en', 'subscribe.enabled': 'on', 'footer_text.en': 'Run by Acme & Co', custom_css: 'body { background: rgb(1, 2, 3) }' };
    assert.equal((await admin.post(`/statuspages/${created.uuid}`, form)).status, 303);
    const html = await (await fetch(`${p.url}/status/styled`)).text();
    assert.match(html, /<style nonce="[^"]+">[^<]*<\/style><style nonce="[^"]+" data-custom-css="">body \{ background: rgb\(1, 2, 3\) \}<\/style>/);
    assert.match(html, /<span class="footer-text">Run by Acme &amp; Co<\/span>/);
    assert.equal((await admin.post(`/statuspages/${created.uuid}`, { ...form, 'authentication.password_protection': 'on', password: 'styled page password' })).status, 303);
    const wall = await fetch(`${p.url}/status/styled`);
    assert.equal(wall.status, 401);
    const wallHtml = await wall.text();
    assert.doesNotMatch(wallHtml, /data-custom-css|Run by Acme/);
  });
});

describe('sections: add, rename, reorder, remove, a service\'s own texts (plain posts)', () => {
  test('each button posts one edit, stored through the API\'s schema; localized texts survive other edits', async () => {
    const m = await api('/v1/monitors', { method: 'POST', json: { name: 'Web', url: 'http://127.0.0.1:9/', check_frequency: 60 } });
    const created = await api('/v2/statuspages', { method: 'POST', json: { name: 'Sections', languages: ['en', 'de'], sections: [{ name: { en: 'Core', de: 'Kern' }, services: [{ monitor_uuid: m.uuid, description: { en: 'Site', de: 'Seite' } }] }] } });
    const u = created.uuid as string;
    const op = async (form: Record<string, string>) => {
      const r = await admin.post(`/statuspages/${u}/sections`, form);
      assert.equal(r.status, 303, r.html.match(/role="alert">[^<]*/)?.[0]);
      return (await api(`/v2/statuspages/${u}`)).statuspage.sections as Array<{ name: Record<string, string>; services: Array<{ name_shown: string | null; description: Record<string, string> | null; show_uptime: boolean; show_response_times: boolean }> }>;
    };
    let s = await op({ op: 'add-section', name: 'Extras' });
    assert.deepEqual(s.map((x) => x.name), [{ en: 'Core', de: 'Kern' }, { en: 'Extras' }], 'another edit keeps the localized name');
    assert.deepEqual(s[0]!.services[0]!.description, { en: 'Site', de: 'Seite' });
    s = await op({ op: 'rename-section', section: '1', name: 'More' });
    assert.deepEqual(s[1]!.name, { en: 'More' });
    s = await op({ op: 'move-section', section: '1', dir: 'up' });
    assert.deepEqual(s.map((x) => x.name.en), ['More', 'Core']);
    s = await op({ op: 'edit-service', section: '1', service: '0', name_shown: 'Website', description: 'The shop', show_uptime: 'on' });
    assert.deepEqual({ ...s[1]!.services[0]!, name_shown: s[1]!.services[0]!.name_shown }, { ...s[1]!.services[0]!, name_shown: 'Website', description: { en: 'The shop' }, show_uptime: true, show_response_times: false });
    s = await op({ op: 'remove-section', section: '0' });
    assert.deepEqual(s.map((x) => x.name.en), ['Core']);
    // A page in several languages: its texts per language.
    const editor = await admin.get(`/statuspages/${u}`);
    assert.match(editor.html, /name="name\.de" value="Kern"/);
    assert.match(editor.html, /name="description\.en" value="The shop"\/>[\s\S]*?name="description\.de" value=""/, 'the description saved as one text is the first language\'s');
    s = await op({ op: 'rename-section', section: '0', 'name.en': 'Basics', 'name.de': 'Grundlagen' });
    assert.deepEqual(s[0]!.name, { en: 'Basics', de: 'Grundlagen' });
    s = await op({ op: 'edit-service', section: '0', service: '0', 'name_shown.en': 'Shop', 'name_shown.de': 'Laden', 'description.en': 'Buy', 'description.de': 'Kaufen', show_uptime: 'on', show_response_times: 'on' });
    const sv = s[0]!.services[0]! as unknown as { name: Record<string, string>; name_shown: string; description: Record<string, string> };
    assert.deepEqual([sv.name, sv.name_shown, sv.description], [{ en: 'Shop', de: 'Laden' }, 'Shop', { en: 'Buy', de: 'Kaufen' }]);
    const refused = await admin.post(`/statuspages/${u}/sections`, { op: 'rename-section', section: '0', name: '  ' });
    assert.equal(refused.status, 400, 'an empty name is the API rule');
    assert.match(refused.html, /must not be empty/);
  });
});

describe('preview', () => {
  test('renders the public page from the posted draft without saving; editors only; the public page CSP, framable by the console only', async () => {
    const created = await api('/v2/statuspages', { method: 'POST', json: { name: 'Preview Me', subdomain: 'preview-me', google_analytics: 'G-KEEPOUT1' } });
    const u = created.uuid as string;
    const stored = await admin.get(`/statuspages/${u}/preview`);
    assert.equal(stored.status, 200);
    assert.match(stored.html, /<title>Preview Me/);
    const draft = await admin.post(`/statuspages/${u}/preview`, { name: 'Draft Title', 'description.en': 'Typed but not saved', theme: 'dark', font: 'Inter', accent_color: '#aa0000', logo_height: '32px', languages: 'en', google_analytics: 'G-KEEPOUT1' });
    assert.equal(draft.status, 200, draft.html.slice(0, 400));
    assert.match(draft.html, /Draft Title/);
    assert.match(draft.html, /Typed but not saved/);
    assert.match(draft.html, /--accent:#aa0000/);
    assert.doesNotMatch(draft.html, /googletagmanager/, 'no analytics in a preview');
    const csp = draft.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'self'/);
    assert.match(csp, /script-src 'nonce-/);
    assert.doesNotMatch(csp, /script-src 'self'/, "the public page's policy, not the console's");
    assert.equal(draft.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal((await api(`/v2/statuspages/${u}`)).statuspage.name, 'Preview Me', 'nothing saved');
    const log = await api(`/v1/audit-log?resource_type=statuspage&resource_uuid=${u}`);
    assert.deepEqual(log.entries.map((e: { action: string }) => e.action), ['create'], 'nothing audited');
    // A refused draft names the rule inside the frame.
    const bad = await admin.post(`/statuspages/${u}/preview`, { name: 'X', accent_color: 'nope', languages: 'en', theme: 'dark', font: 'Inter', logo_height: '32px' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /accent_color<\/b>: must be a hex colour/);
    // The editor frames it sandboxed; the console's CSP allows framing only itself.
    const edit = await admin.get(`/statuspages/${u}`);
    assert.match(edit.html, new RegExp(`<iframe name="page-preview"[^>]*src="/statuspages/${u}/preview" sandbox="allow-same-origin"`));
    assert.match(edit.headers.get('content-security-policy') ?? '', /frame-src 'self'/);
    assert.equal(edit.headers.get('x-frame-options'), 'DENY');
    assert.match(edit.html, new RegExp(`formaction="/statuspages/${u}/preview" formtarget="_blank"`), 'without JavaScript a Preview button opens it');

    // Not anonymously, not for viewers.
    const anon = await fetch(`${p.url}/statuspages/${u}/preview`, { redirect: 'manual' });
    assert.equal(anon.status, 303);
    assert.match(anon.headers.get('location') ?? '', /^\/login/);
    const anonPost = await fetch(`${p.url}/statuspages/${u}/preview`, { method: 'POST', redirect: 'manual', headers: { origin: p.url, 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x' });
    assert.equal(anonPost.status, 403);
    assert.equal((await admin.post('/settings/users', { email: 'vera@example.com', name: 'Vera', role: 'viewer', password: 'vera long password' })).status < 400, true);
    const viewer = await signIn(p, 'vera@example.com', 'vera long password');
    assert.equal((await viewer.get(`/statuspages/${u}/preview`)).status, 403);
    assert.equal((await viewer.post(`/statuspages/${u}/preview`, { name: 'x' })).status, 403);
    const seen = await viewer.get(`/statuspages/${u}`);
    assert.equal(seen.status, 200);
    assert.doesNotMatch(seen.html, /<iframe/, 'a viewer sees no preview frame');
  });
});

describe('"Add" buttons clicked twice add once', () => {
  test('the same add-section, add-service, add-group and add-child posted twice change the page once', async () => {
    const m = await api('/v1/monitors', { method: 'POST', json: { name: 'Twice', url: 'http://127.0.0.1:9/', check_frequency: 60 } });
    const u = (await api('/v2/statuspages', { method: 'POST', json: { name: 'Adds' } })).uuid as string;
    const twice = async (form: Record<string, string>) => {
      for (let i = 0; i < 2; i++) assert.equal((await admin.post(`/statuspages/${u}/sections`, form)).status, 303);
    };
    await twice({ op: 'add-section', name: 'Core' });
    await twice({ op: 'add-service', section: '0', uuid: m.uuid });
    await twice({ op: 'add-group', section: '0', name: 'Backends' });
    await twice({ op: 'add-child', section: '0', service: '1', uuid: m.uuid });
    const secs = (await api(`/v2/statuspages/${u}`)).statuspage.sections as Array<{ name: { en: string }; services: Array<{ monitor_uuid: string | null; name_shown: string | null; services: unknown[] }> }>;
    assert.deepEqual(secs.map((x) => x.name.en), ['Core']);
    assert.deepEqual(secs[0]!.services.map((x) => x.monitor_uuid ?? x.name_shown), [m.uuid, 'Backends']);
    assert.equal(secs[0]!.services[1]!.services.length, 1);
  });
});
