import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver } from '../support/receivers.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { telegramKeys } from '../../src/core/page-links-telegram.ts';

// Telegram inline buttons on pages (issue 34 point 4) over HTTP, on the store under test: a local
// receiver stands in for the Telegram Bot API (sendMessage, answerCallbackQuery, editMessageText)
// and for a webhook integration (`/hook`, the policy's second step); time is the manual clock.
const TOKEN = '123456:TELEGRAMTEST';
const CHAT = '424242';

let p: TestPharos;
let rx: Awaited<ReturnType<typeof httpReceiver>>;
let me: string;
let hook: string;

type Sent = { chat_id: string; text: string; reply_markup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> } };
const bot = (method: string) => rx.received.filter((r) => r.path === `/bot${TOKEN}/${method}`).map((r) => JSON.parse(r.body) as Record<string, unknown>);
const sent = () => bot('sendMessage') as unknown as Sent[];
const json = async (path: string, method: string, body: unknown, status = method === 'POST' ? 201 : 200) => {
  const res = await p.api(path, { method, json: body });
  assert.equal(res.status, status, await res.clone().text());
  return res.json();
};
const secret = telegramKeys(TOKEN).webhook;
const press = (data: string, opts: { path?: string; header?: string; chat?: string } = {}) =>
  fetch(`${p.url}/hooks/telegram/${opts.path ?? secret}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': opts.header ?? secret },
    body: JSON.stringify({ update_id: 1, callback_query: { id: 'cq1', from: { id: Number(opts.chat ?? CHAT) }, data, message: { message_id: 77, chat: { id: Number(opts.chat ?? CHAT) } } } }),
  });

before(async () => {
  rx = await httpReceiver();
  p = await startTestPharos({
    channels: [
      { name: 'bot', type: 'telegram', bot_token: TOKEN, chat_id: '-1001', api_url: rx.url },
      { name: 'hook', type: 'webhook', url: `${rx.url}/hook` },
    ],
  });
  me = (await (await p.api('/v1/me')).json()).uuid;
  hook = (await (await p.api('/v1/integrations')).json()).find((i: { name: string }) => i.name === 'hook').uuid;
  const m = await json('/v1/me/contact-methods', 'POST', { kind: 'telegram', address: CHAT });
  const code = /(\d{6})/.exec(sent().at(-1)!.text)![1]!;
  await json(`/v1/me/contact-methods/${m.uuid}/verify`, 'POST', { code }, 200);
});
after(async () => {
  await p?.cleanup();
  await rx?.close();
});

describe('Telegram inline buttons', () => {
  test('a page carries Acknowledge / Resolve buttons; pressing one acknowledges as the person once, and the next step is not sent', async () => {
    const ep = await json('/v1/escalation-policies', 'POST', {
      name: 'Telegram',
      steps: [
        { delay_minutes: 0, targets: [{ type: 'user', uuid: me }] },
        { delay_minutes: 15, targets: [{ type: 'integration', uuid: hook }] },
      ],
    });
    const { outage: o } = await json('/v2/outages', 'POST', { description: 'API is down', escalationPolicyUuid: ep.uuid }, 200);
    await p.advance(0);
    const page = sent().at(-1)!;
    assert.equal(page.chat_id, CHAT);
    assert.match(page.text, new RegExp(`Outage #${o.incidentNumber}`));
    const row = page.reply_markup?.inline_keyboard[0] ?? [];
    assert.deepEqual(row.map((b) => b.text), ['Acknowledge', 'Resolve']);
    assert.match(row[0]!.callback_data, /^ack:/);
    assert.match(row[1]!.callback_data, /^res:/);
    for (const b of row) assert.ok(Buffer.byteLength(b.callback_data) <= 64, b.callback_data);

    assert.equal((await press(row[0]!.callback_data, { path: 'wrong' })).status, 403, 'a wrong path secret is refused');
    assert.equal((await press(row[0]!.callback_data, { header: 'wrong' })).status, 403, 'a wrong secret header is refused');
    assert.equal((await press(row[0]!.callback_data, { chat: '999' })).status, 200);
    assert.equal((await p.core.outages.get(o.uuid)).acknowledgedAt, null, 'another chat cannot act');

    const ok = await press(row[0]!.callback_data);
    assert.equal(ok.status, 200);
    assert.equal((await p.core.outages.get(o.uuid)).acknowledgedBy, me);
    assert.match(String(bot('answerCallbackQuery').at(-1)!.text), /^Acknowledged by /);
    const edit = bot('editMessageText').at(-1)!;
    assert.equal(edit.message_id, 77);
    assert.match(String(edit.text), new RegExp(`Outage #${o.incidentNumber}: Acknowledged by `));

    const hooks = rx.received.filter((r) => r.path === '/hook').length;
    await p.advance(20 * 60_000);
    assert.equal(rx.received.filter((r) => r.path === '/hook').length, hooks, 'the second step is not sent');
    const timeline = (await p.core.outages.timeline(o.uuid)).map((e) => `${e.type} ${e.message ?? ''}`);
    assert.ok(timeline.some((t) => /^acknowledged by Telegram button/.test(t)), timeline.join('\n'));

    await p.core.outages.unacknowledge(o.uuid, { user: (await p.store.async.users.findUser(me))!, scope: 'write', tokenId: 't' }, null);
    await press(row[0]!.callback_data);
    assert.match(String(bot('answerCallbackQuery').at(-1)!.text), /already used/);
    assert.equal((await p.core.outages.get(o.uuid)).acknowledgedAt, null, 'a replayed button does not act');
  });
});
