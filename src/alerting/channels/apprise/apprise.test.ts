import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelConfig, secretFieldsOf, type ChannelConfigOf } from '../../../domain/channels/index.ts';
import { ChannelError, createChannel, type Channel } from '../index.ts';
import { createAppriseChannel, urlRedactor } from './index.ts';
import { httpReceiver } from '../../../../test/support/receivers.ts';
import { SAMPLE_LINK, sampleMessage } from '../../../../test/support/fake-provider.ts';

// The apprise kind runs Debian's `apprise` CLI (https://github.com/caronc/apprise/wiki/CLI_Usage)
// against Apprise's own `json://` service (https://github.com/caronc/apprise/wiki/Notify_Custom_JSON:
// POST of `{version, title, message, type, attachments}`) at a local receiver.
const rx = await httpReceiver();
const dir = mkdtempSync(join(tmpdir(), 'pharos-apprise-'));
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await rx.close();
  rmSync(dir, { recursive: true, force: true });
});
const jsonUrl = (path: string) => `${rx.url.replace(/^http/, 'json')}${path}`;
const config = (urls: string[], over: Record<string, unknown> = {}) => ChannelConfig.parse({ name: 'family', type: 'apprise', urls, timeout_seconds: 10, ...over }) as ChannelConfigOf<'apprise'>;
const open = (urls: string[]) => {
  const ch = createChannel(config(urls));
  opened.push(ch);
  return ch;
};

test('runs apprise: every URL gets the title, the text and facts, and the type of the message; the answer is its log', async () => {
  rx.received.length = 0;
  rx.state.answer = () => 200;
  const answer = await open([jsonUrl('/one/SECRETa1'), jsonUrl('/two/SECRETb2')]).send(sampleMessage(), { deliveryId: 'dlv_1' });
  assert.equal(answer.status, 0);
  assert.match(answer.body, /Sent JSON POST notification/);
  assert.ok(!answer.body.includes('SECRET'), answer.body);
  assert.deepEqual(rx.received.map((r) => r.path).sort(), ['/one/SECRETa1', '/two/SECRETb2']);
  const body = JSON.parse(rx.received[0]!.body);
  assert.equal(body.title, 'DOWN: API (https://api.example.com)');
  assert.equal(body.type, 'failure');
  assert.equal(body.message, `${sampleMessage().text}\n\nMonitor: API (https://api.example.com)\nCause: Expected 200, got 503\nStarted: 2025-03-04T05:06:07.000Z\nIncident: INC-42 (major)\nLink: ${SAMPLE_LINK}`);
  await open([jsonUrl('/one/SECRETa1')]).send(sampleMessage('recovery'), { deliveryId: 'dlv_2' });
  assert.equal(JSON.parse(rx.received.at(-1)!.body).type, 'success');
});

test('never a shell: quotes, $(…), ; and a leading -- in title and body arrive verbatim', async () => {
  rx.received.length = 0;
  rx.state.answer = () => 200;
  const marker = join(dir, 'pwned');
  const evil = `-- "x' $(touch ${marker}); touch ${marker} \`touch ${marker}\``;
  await open([jsonUrl('/evil')]).send({ ...sampleMessage('notice'), title: evil, text: evil, outage: null, link: null }, { deliveryId: 'dlv_3' });
  const body = JSON.parse(rx.received[0]!.body);
  assert.equal(body.title, evil);
  assert.equal(body.message, evil);
  assert.ok(!existsSync(marker));
});

test('a 4xx answer is a permanent failure, 5xx is retried (connection errors: the contract suite); the log is the answer, without the URLs\' secrets', async () => {
  rx.state.answer = () => 401;
  let err = await open([jsonUrl('/hook/SECRETc3')]).send(sampleMessage(), { deliveryId: 'dlv_4' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ChannelError);
  assert.equal(err.permanent, true);
  assert.match(err.message, /^apprise family: exit 1: Failed to send JSON POST notification: .*error=401/);
  assert.equal(err.answer?.status, 1);
  assert.match(err.answer!.body, /error=401/);
  for (const s of [err.message, err.answer!.body]) assert.ok(!s.includes('SECRETc3'), s);
  rx.state.answer = () => 503;
  err = await open([jsonUrl('/hook/SECRETc3')]).send(sampleMessage(), { deliveryId: 'dlv_5' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ChannelError && !err.permanent, String(err));
  rx.state.answer = () => 200;
});

test('a URL apprise cannot use is a permanent failure that does not quote it', async () => {
  const err = await open(['nosuchservice://user:SECRETd4@host/x']).send(sampleMessage(), { deliveryId: 'dlv_6' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ChannelError);
  assert.equal(err.permanent, true);
  assert.ok(!`${err.message} ${err.answer?.body}`.includes('SECRETd4'), `${err.message} ${err.answer?.body}`);
});

test('a missing apprise binary is a clear permanent error naming apt install apprise', async () => {
  const ch = createAppriseChannel(config([jsonUrl('/x')]), { command: join(dir, 'no-such-apprise') });
  const err = await ch.send(sampleMessage(), { deliveryId: 'dlv_7' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ChannelError);
  assert.equal(err.permanent, true);
  assert.equal(err.message, 'apprise family: the apprise command is not installed (apt install apprise)');
});

test('a run past the timeout is killed and retried', async () => {
  const slow = join(dir, 'slow-apprise');
  writeFileSync(slow, '#!/bin/sh\nsleep 30\n');
  chmodSync(slow, 0o755);
  const ch = createAppriseChannel(config([jsonUrl('/x')], { timeout_seconds: 1 }), { command: slow });
  const started = Date.now();
  const err = await ch.send(sampleMessage(), { deliveryId: 'dlv_8' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ChannelError);
  assert.equal(err.permanent, false);
  assert.equal(err.message, 'apprise family: timeout after 1 s');
  assert.ok(Date.now() - started < 5_000);
});

test('the URL list is the secret field; the redactor keeps host names and hides tokens', () => {
  assert.deepEqual(secretFieldsOf('apprise'), ['urls']);
  const redact = urlRedactor(['tgram://123456:AAH-secret_tok/-100987', 'json://hooks.example.com/in/p%40ssw0rd']);
  assert.equal(redact('to hooks.example.com with AAH-secret_tok and p@ssw0rd'), 'to hooks.example.com with *** and ***');
  assert.ok(!ChannelConfig.safeParse({ name: 'a', type: 'apprise', urls: [] }).success);
  assert.ok(!ChannelConfig.safeParse({ name: 'a', type: 'apprise', urls: ['not a url'] }).success);
});
