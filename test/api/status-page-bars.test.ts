import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';

// The uptime bars of a status page are built once per distinct (day, uptime, downtime) in a response
// and shared by the services whose day reads alike (views/status-page.tsx barsHtml): every service must
// still show its own 90 days, in the visitor's language, whatever the other services or responses were.
const DAY = 86_400_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The `[class, title]` of each bar of service `name` in `html`. */
function barsOf(html: string, name: string): Array<[string, string]> {
  const block = new RegExp(`data-service="${name}"[\\s\\S]*?<div class="bars"[^>]*>([\\s\\S]*?)</div>`).exec(html)?.[1];
  assert.ok(block !== undefined, `${name} has bars`);
  return [...block.matchAll(/<span class="bar ([^"]+)" title="([^"]*)"><\/span>/g)].map((m) => [m[1]!, m[2]!.replaceAll('&#39;', "'")]);
}

describe('status page uptime bars', () => {
  test('each service shows its own 90 days (shared bars reused only where the day reads alike), in each language', async () => {
    const f: StatusFixture = await statusFixture();
    cleanups.push(() => f.close());
    const now = f.p.clock.now();
    const today = now - (now % DAY);
    const days = Array.from({ length: 90 }, (_, i) => today - (89 - i) * DAY);
    const html = await (await fetch(`${f.p.url}/status/acme`)).text();
    const en = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' });
    const web = barsOf(html, 'Web');
    const api = barsOf(html, 'API');
    const search = barsOf(html, 'Search');
    for (const bars of [web, api, search]) assert.equal(bars.length, 90);
    // Before their creation (today) every monitor has no data: the same 89 bars, each with its own date.
    for (let i = 0; i < 89; i++) {
      assert.deepEqual(web[i], ['l-none', `${en.format(days[i]!)} · No data`], `Web day ${i}`);
      assert.deepEqual(api[i], web[i], `API day ${i}`);
    }
    assert.deepEqual(web[89], ['l-ok', `${en.format(today)} · 100.00 % · No downtime`]);
    assert.deepEqual(search, web, 'Search reads like Web: the same bars');
    assert.equal(api[89]![0], 'l-major', 'the failing API is red today, though Web and Search (rendered in the same response) are green');
    assert.match(api[89]![1], new RegExp(`^${en.format(today)} · [0-9.]+ % · Down for `));

    // The second language gets its own bars (dates and words), not the first language's.
    const de = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeZone: 'UTC' });
    const htmlDe = await (await fetch(`${f.p.url}/status/acme?lang=de`)).text();
    const webDe = barsOf(htmlDe, 'Web');
    assert.deepEqual(webDe[0], ['l-none', `${de.format(days[0]!)} · Keine Daten`]);
    assert.deepEqual(webDe[89], ['l-ok', `${de.format(today)} · 100.00 % · Keine Ausfälle`]);
    assert.match(barsOf(htmlDe, 'API')[89]![1], /· Ausfallzeit: /);
    assert.ok(!/title="[^"]*(No data|No downtime|Down for)/.test(htmlDe), 'no English bar title on the German page');
  });
});
