import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelConfig, secretFieldsOf } from '../../../domain/channels/index.ts';
import { createChannel, type Channel } from '../index.ts';
import { expectFailure, fakeProvider, SAMPLE_LINK, sampleMessage } from '../../../../test/support/fake-provider.ts';

// Rocket.Chat incoming webhooks (https://docs.rocket.chat/docs/integrations, "Incoming webhook"):
// `POST /hooks/<id>/<token>` with `{text, alias, emoji, channel, attachments: [{title, title_link,
// text, color, fields: [{short, title, value}]}]}`, answered 200 `{"success": true}`, or 400
// `{"success": false, "error": "Invalid integration id or token provided."}`. The fake does the same.
const fake = await fakeProvider({ status: 200, body: '{"success":true}' });
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await fake.close();
});
const open = (over: Record<string, unknown> = {}) => {
  const ch = createChannel(ChannelConfig.parse({ name: 'rc', type: 'rocketchat', url: `${fake.base}/hooks/6NYu8eHxL/SECRETtoken`, ...over }));
  opened.push(ch);
  return ch;
};

test('POSTs text and one attachment (linked title, color, facts) to the webhook, with channel and alias', async () => {
  fake.reset({ status: 200, body: '{"success":true}' });
  const answer = await open({ channel: '#ops', alias: 'Pharos', emoji: ':rotating_light:' }).send(sampleMessage(), { deliveryId: 'dlv_1' });
  assert.deepEqual(answer, { status: 200, body: '{"success":true}' });
  const r = fake.last();
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/hooks/6NYu8eHxL/SECRETtoken');
  assert.equal(r.headers['content-type'], 'application/json');
  assert.deepEqual(r.json, {
    text: 'DOWN: API (https://api.example.com)',
    channel: '#ops',
    alias: 'Pharos',
    emoji: ':rotating_light:',
    attachments: [
      {
        title: 'DOWN: API (https://api.example.com)',
        title_link: SAMPLE_LINK,
        text: sampleMessage().text,
        color: '#d93025',
        fields: [
          { short: true, title: 'Monitor', value: 'API (https://api.example.com)' },
          { short: false, title: 'Cause', value: 'Expected 200, got 503' },
          { short: true, title: 'Started', value: '2025-03-04T05:06:07.000Z' },
          { short: true, title: 'Incident', value: 'INC-42 (major)' },
          { short: false, title: 'Link', value: SAMPLE_LINK },
        ],
      },
    ],
  });
});

test('a recovery is green; no overrides unless configured', async () => {
  fake.reset({ status: 200, body: '{"success":true}' });
  await open().send(sampleMessage('recovery'), { deliveryId: 'dlv_2' });
  const j = fake.last().json;
  assert.deepEqual(Object.keys(j), ['text', 'attachments']);
  assert.equal(j.attachments[0].color, '#1e8e3e');
  assert.deepEqual(secretFieldsOf('rocketchat'), ['url']);
});

test('400 (bad id or token) is permanent with Rocket.Chat\'s answer, the token not in the message; 503 is retried', async () => {
  const body = '{"success":false,"error":"Invalid integration id or token provided."}';
  fake.reset({ status: 400, body });
  const err = await expectFailure(open(), true, ['SECRETtoken', '6NYu8eHxL']);
  assert.deepEqual(err.answer, { status: 400, body });
  assert.equal(err.message, 'rocketchat rc: HTTP 400');
  fake.reset({ status: 503, body: 'Service Unavailable' });
  await expectFailure(open(), false, ['SECRETtoken']);
});
