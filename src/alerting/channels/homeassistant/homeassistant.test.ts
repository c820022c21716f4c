import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelConfig } from '../../../domain/channels/index.ts';
import { createChannel, type Channel } from '../index.ts';
import { expectFailure, fakeProvider, SAMPLE_LINK, sampleMessage } from '../../../../test/support/fake-provider.ts';

// Home Assistant's REST API (https://developers.home-assistant.io/docs/api/rest/): `POST
// /api/services/<domain>/<service>` with `Authorization: Bearer <long-lived access token>` and the
// service data as JSON; it answers 200 with the states changed (a JSON array), 401 for a bad token
// and 400 for a bad service call. The fake answers the same way.
const fake = await fakeProvider({ status: 200, body: '[]' });
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await fake.close();
});
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.SECRET-LLAT.sig';
const open = (over: Record<string, unknown> = {}) => {
  const ch = createChannel(ChannelConfig.parse({ name: 'home', type: 'homeassistant', base_url: `${fake.base}/ha`, token: TOKEN, service: 'mobile_app_pixel_7', ...over }));
  opened.push(ch);
  return ch;
};

test('calls notify.<service> with title, message, the console link as data.url/clickAction, and the token as Bearer', async () => {
  fake.reset({ status: 200, body: '[]' });
  const answer = await open({ target: ['living_room'] }).send(sampleMessage(), { deliveryId: 'dlv_1' });
  assert.deepEqual(answer, { status: 200, body: '[]' });
  const r = fake.last();
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/ha/api/services/notify/mobile_app_pixel_7');
  assert.equal(r.headers['authorization'], `Bearer ${TOKEN}`);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['idempotency-key'], 'dlv_1');
  assert.deepEqual(r.json, {
    title: 'DOWN: API (https://api.example.com)',
    message: `${sampleMessage().text}\n\nMonitor: API (https://api.example.com)\nCause: Expected 200, got 503\nStarted: 2025-03-04T05:06:07.000Z\nIncident: INC-42 (major)\nLink: ${SAMPLE_LINK}`,
    target: ['living_room'],
    data: { url: SAMPLE_LINK, clickAction: SAMPLE_LINK },
  });
});

test('no target and no data when neither is given', async () => {
  fake.reset({ status: 200, body: '[]' });
  await open().send({ ...sampleMessage('notice'), outage: null, link: null }, { deliveryId: 'dlv_2' });
  assert.deepEqual(Object.keys(fake.last().json), ['title', 'message']);
});

test('401 (bad token) is a permanent failure carrying the answer, without the token; 502 is retried', async () => {
  fake.reset({ status: 401, body: '401: Unauthorized' });
  const err = await expectFailure(open(), true, [TOKEN, 'SECRET-LLAT']);
  assert.deepEqual(err.answer, { status: 401, body: '401: Unauthorized' });
  assert.equal(err.message, 'homeassistant home: HTTP 401');
  fake.reset({ status: 502, body: '{"message":"Bad gateway"}' });
  await expectFailure(open(), false, [TOKEN]);
});

test('the service name is checked; the token is a secret field', async () => {
  assert.ok(!ChannelConfig.safeParse({ name: 'h', type: 'homeassistant', base_url: 'http://ha.lan:8123', token: 't', service: 'notify.phone' }).success);
  const { secretFieldsOf } = await import('../../../domain/channels/index.ts');
  assert.deepEqual(secretFieldsOf('homeassistant'), ['token']);
});
