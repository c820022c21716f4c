import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ChannelConfig, secretFieldsOf } from '../../../domain/channels/index.ts';
import { createChannel, type Channel } from '../index.ts';
import { expectFailure, fakeProvider, SAMPLE_LINK, sampleMessage } from '../../../../test/support/fake-provider.ts';

// Nextcloud Talk's chat API (https://nextcloud-talk.readthedocs.io/en/latest/chat/, "Sending a new
// chat message"): `POST /ocs/v2.php/apps/spreed/api/v1/chat/<token>` with `OCS-APIRequest: true`,
// basic auth of a user (an app password), `{message, referenceId}`; answered 201 with the OCS
// envelope, 404 when the conversation is not found, 401 for a bad login. The fake does the same.
const CREATED = '{"ocs":{"meta":{"status":"ok","statuscode":201,"message":"OK"},"data":{"id":1}}}';
const fake = await fakeProvider({ status: 201, body: CREATED });
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await fake.close();
});
const PASSWORD = 'SECRET-app-PASSWORD';
const open = (over: Record<string, unknown> = {}) => {
  const ch = createChannel(ChannelConfig.parse({ name: 'talk', type: 'nextcloudtalk', base_url: `${fake.base}/cloud`, conversation: 'a1b2c3d4', user: 'pharos-bot', password: PASSWORD, ...over }));
  opened.push(ch);
  return ch;
};

test('POSTs the chat message to the conversation with OCS-APIRequest, basic auth and a referenceId from the delivery id', async () => {
  fake.reset({ status: 201, body: CREATED });
  const answer = await open().send(sampleMessage(), { deliveryId: 'dlv_1' });
  assert.deepEqual(answer, { status: 201, body: CREATED });
  const r = fake.last();
  assert.equal(r.method, 'POST');
  assert.equal(r.path, '/cloud/ocs/v2.php/apps/spreed/api/v1/chat/a1b2c3d4');
  assert.equal(r.headers['ocs-apirequest'], 'true');
  assert.equal(r.headers['accept'], 'application/json');
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['authorization'], `Basic ${Buffer.from(`pharos-bot:${PASSWORD}`).toString('base64')}`);
  assert.deepEqual(r.json, {
    message: `DOWN: API (https://api.example.com)\n\n${sampleMessage().text}\n\nMonitor: API (https://api.example.com)\nCause: Expected 200, got 503\nStarted: 2025-03-04T05:06:07.000Z\nIncident: INC-42 (major)\nLink: ${SAMPLE_LINK}`,
    referenceId: createHash('sha256').update('dlv_1').digest('hex'),
  });
});

test('404 (no such conversation) is permanent with the OCS answer and no password in the message; 503 is retried', async () => {
  const body = '{"ocs":{"meta":{"status":"failure","statuscode":404,"message":""},"data":[]}}';
  fake.reset({ status: 404, body });
  const err = await expectFailure(open(), true, [PASSWORD, Buffer.from(`pharos-bot:${PASSWORD}`).toString('base64')]);
  assert.deepEqual(err.answer, { status: 404, body });
  fake.reset({ status: 503, body: '{"ocs":{"meta":{"status":"failure","statuscode":503}}}' });
  await expectFailure(open(), false, [PASSWORD]);
});

test('the conversation token is checked; the password is the secret field', () => {
  assert.ok(!ChannelConfig.safeParse({ name: 't', type: 'nextcloudtalk', base_url: 'https://cloud.example.com', conversation: 'x/../y', user: 'u', password: 'p' }).success);
  assert.deepEqual(secretFieldsOf('nextcloudtalk'), ['password']);
});
