import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

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
