import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelConfig, secretFieldsOf } from '../../../domain/channels/index.ts';
import { createChannel, type Channel } from '../index.ts';
import { expectFailure, fakeProvider, SAMPLE_LINK, sampleMessage } from '../../../../test/support/fake-provider.ts';

// signal-cli-rest-api (https://github.com/bbernhard/signal-cli-rest-api, its Swagger doc
// https://bbernhard.github.io/signal-cli-rest-api/ "POST /v2/send"): `{message, number, recipients}`,
// answered 201 `{"timestamp": "…"}`, or 400 `{"error": "…"}` (an unregistered number, a bad
// recipient). The fake answers the same way.
const fake = await fakeProvider({ status: 201, body: '{"timestamp":"1741065000000"}' });
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await fake.close();
});
const open = (over: Record<string, unknown> = {}) => {
  const ch = createChannel(ChannelConfig.parse({ name: 'phones', type: 'signal', base_url: `${fake.base}/signal`, number: '+15550001111', recipients: ['+15552223333', 'group.c2lnbmFsLWdyb3Vw'], ...over }));
  opened.push(ch);
  return ch;
};

test('POSTs /v2/send with the message (title, text, facts, link), the sender number and the recipients', async () => {
  fake.reset({ status: 201, body: '{"timestamp":"1741065000000"}' });
  const answer = await open().send(sampleMessage(), { deliveryId: 'dlv_1' });
  assert.deepEqual(answer, { status: 201, body: '{"timestamp":"1741065000000"}' });
  const r = fake.last();
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/signal/v2/send');
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['authorization'], undefined);
  assert.deepEqual(r.json, {
    message: `DOWN: API (https://api.example.com)\n\n${sampleMessage().text}\n\nMonitor: API (https://api.example.com)\nCause: Expected 200, got 503\nStarted: 2025-03-04T05:06:07.000Z\nIncident: INC-42 (major)\nLink: ${SAMPLE_LINK}`,
    number: '+15550001111',
    recipients: ['+15552223333', 'group.c2lnbmFsLWdyb3Vw'],
    text_mode: 'normal',
  });
});

test('basic auth for a reverse proxy in front of the API, when configured', async () => {
  fake.reset({ status: 201, body: '{}' });
  await open({ basic_auth: { user: 'pharos', password: 'SECRET-PW' } }).send(sampleMessage('recovery'), { deliveryId: 'dlv_2' });
  assert.equal(fake.last().headers['authorization'], `Basic ${Buffer.from('pharos:SECRET-PW').toString('base64')}`);
  assert.deepEqual(secretFieldsOf('signal'), ['basic_auth.password']);
});

test('400 from the API is a permanent failure with its answer, naming no secret; 500 is retried', async () => {
  fake.reset({ status: 400, body: '{"error":"Failed to send message: unregistered user"}' });
  const err = await expectFailure(open({ basic_auth: { user: 'pharos', password: 'SECRET-PW' } }), true, ['SECRET-PW']);
  assert.deepEqual(err.answer, { status: 400, body: '{"error":"Failed to send message: unregistered user"}' });
  fake.reset({ status: 500, body: '{"error":"signal-cli daemon not running"}' });
  await expectFailure(open(), false, []);
});

test('numbers are checked: the sender in E.164, at least one recipient', () => {
  assert.ok(!ChannelConfig.safeParse({ name: 's', type: 'signal', base_url: 'http://s.lan:8080', number: '5550001111', recipients: ['+15552223333'] }).success);
  assert.ok(!ChannelConfig.safeParse({ name: 's', type: 'signal', base_url: 'http://s.lan:8080', number: '+15550001111', recipients: [] }).success);
});
