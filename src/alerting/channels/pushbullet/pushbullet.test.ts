import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelConfig, secretFieldsOf } from '../../../domain/channels/index.ts';
import { createChannel, type Channel } from '../index.ts';
import { expectFailure, fakeProvider, SAMPLE_LINK, sampleMessage } from '../../../../test/support/fake-provider.ts';

// Pushbullet's API (https://docs.pushbullet.com/#create-push): `POST /v2/pushes` with the access
// token in `Access-Token`, a `note` or `link` push, optionally to one device, email or channel;
// answered 200 with the push object, 401 `{"error": {"code": "invalid_access_token", …}}`, 429 when
// rate limited. The fake answers the same way.
const PUSH = '{"active":true,"iden":"ujpah72o0sjAoRtnM0jc","type":"link"}';
const fake = await fakeProvider({ status: 200, body: PUSH });
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await fake.close();
});
const TOKEN = 'o.SECRETpushbullet';
const open = (over: Record<string, unknown> = {}) => {
  const ch = createChannel(ChannelConfig.parse({ name: 'pb', type: 'pushbullet', access_token: TOKEN, api_url: `${fake.base}/pb`, ...over }));
  opened.push(ch);
  return ch;
};

test('a link push to the console with title and the text and facts, the token in Access-Token', async () => {
  fake.reset({ status: 200, body: PUSH });
  const answer = await open({ device_iden: 'ujpah72o0sjAoRtnM0jc' }).send(sampleMessage(), { deliveryId: 'dlv_1' });
  assert.deepEqual(answer, { status: 200, body: PUSH });
  const r = fake.last();
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/pb/v2/pushes');
  assert.equal(r.headers['access-token'], TOKEN);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.deepEqual(r.json, {
    type: 'link',
    title: 'DOWN: API (https://api.example.com)',
    body: `${sampleMessage().text}\n\nMonitor: API (https://api.example.com)\nCause: Expected 200, got 503\nStarted: 2025-03-04T05:06:07.000Z\nIncident: INC-42 (major)`,
    url: SAMPLE_LINK,
    device_iden: 'ujpah72o0sjAoRtnM0jc',
  });
});

test('a note without a link; email or channel_tag as the target; one target at most', async () => {
  fake.reset({ status: 200, body: PUSH });
  await open({ email: 'ops@example.com' }).send({ ...sampleMessage('notice'), outage: null, link: null }, { deliveryId: 'dlv_2' });
  assert.equal(fake.last().json.type, 'note');
  assert.equal(fake.last().json.email, 'ops@example.com');
  assert.equal(fake.last().json.url, undefined);
  await open({ channel_tag: 'pharos-ops' }).send(sampleMessage('recovery'), { deliveryId: 'dlv_3' });
  assert.equal(fake.last().json.channel_tag, 'pharos-ops');
  assert.ok(!ChannelConfig.safeParse({ name: 'p', type: 'pushbullet', access_token: 't', email: 'a@b.c', channel_tag: 'x' }).success);
  assert.deepEqual(secretFieldsOf('pushbullet'), ['access_token']);
});

test('401 (bad token) is permanent with Pushbullet\'s answer and no token in the message; 429 is retried', async () => {
  const body = '{"error":{"code":"invalid_access_token","type":"invalid_request","message":"Access token is missing or invalid."}}';
  fake.reset({ status: 401, body });
  const err = await expectFailure(open(), true, [TOKEN, 'SECRETpushbullet']);
  assert.deepEqual(err.answer, { status: 401, body });
  fake.reset({ status: 429, body: '{"error":{"code":"too_many_requests"}}' });
  await expectFailure(open(), false, [TOKEN]);
});

test('the API base defaults to api.pushbullet.com', () => {
  const c = ChannelConfig.parse({ name: 'p', type: 'pushbullet', access_token: 't' }) as { api_url: string };
  assert.equal(c.api_url, 'https://api.pushbullet.com');
});
