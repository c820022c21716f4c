import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelConfig, secretFieldsOf } from '../../../domain/channels/index.ts';
import { createChannel, type Channel } from '../index.ts';
import { expectFailure, fakeProvider, SAMPLE_LINK, sampleMessage } from '../../../../test/support/fake-provider.ts';

// bark-server's API v2 (https://github.com/Finb/bark-server/blob/master/docs/API_V2.md): `POST /push`
// with JSON `{device_key, title, body, level, group, sound, url, icon}`, answered 200
// `{"code":200,"message":"success",…}`, or 400 `{"code":400,"message":"failed to get device token: …"}`
// for an unknown device key. The fake answers the same way.
const OK = '{"code":200,"message":"success","timestamp":1741065000}';
const fake = await fakeProvider({ status: 200, body: OK });
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await fake.close();
});
const KEY = 'SECRETdeviceKEY';
const open = (over: Record<string, unknown> = {}) => {
  const ch = createChannel(ChannelConfig.parse({ name: 'iphone', type: 'bark', server: `${fake.base}/bark`, device_key: KEY, ...over }));
  opened.push(ch);
  return ch;
};

test('POSTs /push with the device key, title, body, the console link as url, group, and the alert level', async () => {
  fake.reset({ status: 200, body: OK });
  const answer = await open({ sound: 'alarm', level: 'critical' }).send(sampleMessage(), { deliveryId: 'dlv_1' });
  assert.deepEqual(answer, { status: 200, body: OK });
  const r = fake.last();
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/bark/push');
  assert.equal(r.headers['content-type'], 'application/json');
  assert.deepEqual(r.json, {
    device_key: KEY,
    title: 'DOWN: API (https://api.example.com)',
    body: `${sampleMessage().text}\n\nMonitor: API (https://api.example.com)\nCause: Expected 200, got 503\nStarted: 2025-03-04T05:06:07.000Z\nIncident: INC-42 (major)`,
    level: 'critical',
    group: 'Pharos',
    url: SAMPLE_LINK,
    sound: 'alarm',
  });
});

test('recoveries and other messages go out at level active; the default level of alerts is timeSensitive', async () => {
  fake.reset({ status: 200, body: OK });
  const ch = open();
  await ch.send(sampleMessage('recovery'), { deliveryId: 'dlv_2' });
  assert.equal(fake.last().json.level, 'active');
  await ch.send(sampleMessage('alert'), { deliveryId: 'dlv_3' });
  assert.equal(fake.last().json.level, 'timeSensitive');
  assert.equal((ChannelConfig.parse({ name: 'b', type: 'bark', device_key: 'k' }) as { server: string }).server, 'https://api.day.app');
  assert.deepEqual(secretFieldsOf('bark'), ['device_key']);
});

test('400 (unknown device key) is permanent with bark-server\'s answer and no key in the message; 500 is retried', async () => {
  const body = '{"code":400,"message":"failed to get device token: failed to get [SECRETdeviceKEY] device token from database","timestamp":1741065000}';
  fake.reset({ status: 400, body });
  const err = await expectFailure(open(), true, [KEY]);
  assert.deepEqual(err.answer, { status: 400, body: body.replace(KEY, '***') }, 'bark-server echoes the key: the answer shown (Send test) has it masked');
  fake.reset({ status: 500, body: '{"code":500,"message":"push failed"}' });
  await expectFailure(open(), false, [KEY]);
});
