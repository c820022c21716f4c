import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { UI_STRINGS } from '../../views/i18n/index.ts';
import { MIN_RENDER_INTERVAL_MS } from '../../src/http/pages/cache.ts';
import { rawDb } from '../../src/store/index.ts';

// Issue 35 point 4: hyperping-go's LocalizedText carries es, it, pt, ja, zh, and the hosted service
// accepts a subscriber with `language: "es"`. Pharos takes the five on status pages (languages and
// localized texts), subscribers and incidents, stores them (both stores: PHAROS_TEST_DRIVER) and
// shows a page in them when the visitor asks (`?lang=`, the page's language switcher).
let p: TestPharos;
after(() => p.cleanup());

const json = async (path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const page = async (path: string) => {
  const res = await p.api(path);
  assert.equal(res.status, 200, path);
  return res.text();
};

let sp: { uuid: string; subdomain: string };

before(async () => {
  p = await startTestPharos();
  const mon = (await json('/v1/monitors', 'POST', { name: 'API', url: 'http://127.0.0.1:9/', paused: true })).body.uuid;
  const created = await json('/v2/statuspages', 'POST', {
    name: 'Acme status',
    subdomain: 'acme',
    languages: ['en', 'es', 'ja', 'it', 'pt', 'zh'],
    description: { en: 'Everything we run', es: 'Todo lo que operamos', ja: '運用中のすべて' },
    sections: [{ name: { en: 'Core', es: 'Núcleo', ja: 'コア', it: 'Nucleo', pt: 'Núcleo', zh: '核心' }, services: [{ monitor_uuid: mon }] }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  sp = created.body.statuspage;
});

test('a status page with texts in en, es, ja: stored as given, shown in es and ja when asked', async () => {
  const got = (await json(`/v2/statuspages/${sp.uuid}`)).body.statuspage;
  assert.deepEqual(got.settings.languages, ['en', 'es', 'ja', 'it', 'pt', 'zh']);
  assert.deepEqual(got.settings.description, { en: 'Everything we run', es: 'Todo lo que operamos', ja: '運用中のすべて' });
  assert.deepEqual(got.sections[0].name, { en: 'Core', es: 'Núcleo', ja: 'コア', it: 'Nucleo', pt: 'Núcleo', zh: '核心' });

  const es = await page('/status/acme?lang=es');
  assert.match(es, /<html lang="es"/);
  assert.ok(es.includes('Todo lo que operamos') && es.includes('Núcleo'), 'the Spanish texts');
  assert.ok(es.includes(UI_STRINGS.es.current_status) || es.includes(UI_STRINGS.es.incident_history), 'Spanish UI strings');
  assert.ok(es.includes(UI_STRINGS.es.language), 'the switcher in Spanish');
  const ja = await page('/status/acme?lang=ja');
  assert.match(ja, /<html lang="ja"/);
  assert.ok(ja.includes('運用中のすべて') && ja.includes('コア'), 'the Japanese texts');
  assert.ok(ja.includes(UI_STRINGS.ja.language), 'the switcher in Japanese');
  for (const name of ['Español', '日本語', 'Italiano', 'Português', '简体中文']) assert.ok(ja.includes(name), `the switcher offers ${name}`);
  for (const [l, core] of [['it', 'Nucleo'], ['pt', 'Núcleo'], ['zh', '核心']] as const) {
    const html = await page(`/status/acme?lang=${l}`);
    assert.match(html, new RegExp(`<html lang="${l}"`));
    assert.ok(html.includes(core) && html.includes(UI_STRINGS[l].language), l);
    assert.ok(html.includes('Everything we run'), `${l}: a text without ${l} falls back to English`);
  }
  const en = await page('/status/acme');
  assert.match(en, /<html lang="en"/);
  assert.ok(en.includes('Everything we run'));

  const bad = await json(`/v2/statuspages/${sp.uuid}`, 'PUT', { languages: ['en', 'xx'] });
  assert.equal(bad.status, 400);
  assert.match(bad.body.message ?? bad.body.error, /zh/, 'the refusal names the twelve');
});

test('without ?lang=, the browser\'s Accept-Language picks among the page\'s languages; links keep the choice', async () => {
  const visit = async (path: string, acceptLanguage?: string) => {
    const res = await fetch(p.url + path, { headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
    assert.equal(res.status, 200, path);
    return { html: await res.text(), vary: res.headers.get('vary') ?? '' };
  };
  const es = await visit('/status/acme', 'es-ES,es;q=0.9,en;q=0.8');
  assert.match(es.html, /<html lang="es"/);
  assert.ok(es.html.includes('Todo lo que operamos'));
  assert.match(es.vary, /Accept-Language/i, 'shared caches keep one copy per language');
  assert.ok(es.html.includes('href="/status/acme/history"'), 'links in the language the browser gets anyway need no ?lang');
  assert.ok(es.html.includes('href="/status/acme?lang=en"'), 'the switcher reaches English, the page\'s first language, with ?lang=en');
  const chosen = await visit('/status/acme?lang=en', 'es-ES,es;q=0.9');
  assert.match(chosen.html, /<html lang="en"/, '?lang= wins over the header');
  assert.ok(chosen.html.includes('href="/status/acme/history?lang=en"'), 'links keep the visitor\'s choice');
  assert.match((await visit('/status/acme', 'ja-JP')).html, /<html lang="ja"/);
  assert.match((await visit('/status/acme', 'zh-CN,zh;q=0.9')).html, /<html lang="zh"/);
  assert.match((await visit('/status/acme', 'fr-FR, pt-BR;q=0.8, es;q=0.5')).html, /<html lang="pt"/, 'the best offered one, by q');
  assert.match((await visit('/status/acme', 'fr, de;q=0.5')).html, /<html lang="en"/, 'none offered: the page\'s first');
  const plain = await visit('/status/acme');
  assert.match(plain.html, /<html lang="en"/);
  assert.ok(plain.html.includes('href="/status/acme/history"') && plain.html.includes('href="/status/acme?lang=es"'), 'no header: as before');
});

test('a subscriber with language "es" (and ja, zh) is accepted and its language kept', async () => {
  const base = `/v2/statuspages/${sp.uuid}/subscribers`;
  for (const [email, language] of [['ana@example.com', 'es'], ['taro@example.com', 'ja'], ['li@example.com', 'zh'], ['gio@example.com', 'it'], ['joao@example.com', 'pt']]) {
    const r = await json(base, 'POST', { type: 'email', email, language });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.language, language);
  }
  const list = (await json(base)).body.subscribers as Array<{ email: string; language: string }>;
  assert.deepEqual(Object.fromEntries(list.map((s) => [s.email, s.language])), { 'ana@example.com': 'es', 'taro@example.com': 'ja', 'li@example.com': 'zh', 'gio@example.com': 'it', 'joao@example.com': 'pt' });
  const refused = await json(base, 'POST', { email: 'x@example.com', language: 'xx' });
  assert.equal(refused.status, 400);
  assert.ok(refused.body.error.startsWith('language:'), refused.body.error);
});

test('an incident with title.zh (and es, it, pt, ja) is accepted, stored and shown in that language', async () => {
  const title = { en: 'Slow logins', zh: '登录缓慢', es: 'Inicios de sesión lentos', it: 'Accessi lenti', pt: 'Logins lentos', ja: 'ログインの遅延' };
  const created = await json('/v3/incidents', 'POST', { title, type: 'incident', statuspages: [sp.uuid], updates: [{ text: { en: 'Looking into it', zh: '正在调查' }, type: 'investigating' }] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const uuid = created.body.uuid;
  const got = (await json(`/v3/incidents/${uuid}`)).body;
  assert.deepEqual(got.title, title);
  assert.equal(got.updates[0].text.zh, '正在调查');
  await p.advance(MIN_RENDER_INTERVAL_MS); // the page rendered in zh in the first test is drawn again after an incident at most once a second
  const zh = await page('/status/acme?lang=zh');
  assert.deepEqual([zh.includes('登录缓慢'), zh.includes('正在调查'), zh.includes(UI_STRINGS.zh.update_investigating)], [true, true, true], 'the incident in Chinese');
  const es = await page('/status/acme?lang=es');
  assert.ok(es.includes('Inicios de sesión lentos') && es.includes('Looking into it'), 'Spanish title; the update falls back to English');
  // Each subscriber's notice is in its own language where the incident has it, else the page's first.
  const subs = (await json(`/v2/statuspages/${sp.uuid}/subscribers`)).body.subscribers as Array<{ uuid: string; email: string }>;
  const noticeOf = async (email: string) => {
    const sub = subs.find((s) => s.email === email)!;
    const row = await rawDb(p.store).prepare<[string], { message: string }>('SELECT message FROM alerts WHERE channel = ? ORDER BY id DESC LIMIT 1').get(`subscriber:${sub.uuid}`);
    return JSON.parse(row!.message) as { title: string; text: string };
  };
  const ana = await noticeOf('ana@example.com');
  assert.ok(ana.title.includes('Inicios de sesión lentos'), ana.title);
  assert.ok(ana.text.includes('Looking into it'), 'the update has no Spanish: English');
  const li = await noticeOf('li@example.com');
  assert.ok(li.title.includes('登录缓慢') && li.text.includes('正在调查'), JSON.stringify(li));
  const bad = await json('/v3/incidents', 'POST', { title: { en: 'x', xx: 'y' }, type: 'incident', statuspages: [] });
  assert.equal(bad.status, 400);
  assert.ok(bad.body.error.startsWith('title.xx:') && bad.body.message.includes('zh'), JSON.stringify(bad.body));
});

test('a maintenance window titled in es, it, pt, ja, zh is accepted and answered as given', async () => {
  const now = p.clock.now();
  const title = { en: 'Database upgrade', es: 'Actualización de la base de datos', it: 'Aggiornamento del database', pt: 'Atualização do banco de dados', ja: 'データベースの更新', zh: '数据库升级' };
  const w = await json('/v1/maintenance-windows', 'POST', { name: 'db', title, start_date: new Date(now + 3_600_000).toISOString(), end_date: new Date(now + 7_200_000).toISOString(), monitors: [] });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  const uuid = w.body.uuid ?? w.body.maintenanceWindow?.uuid;
  assert.deepEqual((await json(`/v1/maintenance-windows/${uuid}`)).body.title, title);
});
