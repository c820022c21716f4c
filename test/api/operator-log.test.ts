import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/lib/logger.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, WRITE_TOKEN } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget } from '../support/targets.ts';

// Issue #14 point 17: what an operator reads in the log when things break. A real Pharos over HTTP on
// a manual clock with a real target, real webhook receivers and an agent polling over HTTP; the
// logger writes JSON lines into an array the test reads.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('one line per outage opened/escalated/acknowledged/resolved, alert delivered/failed, agent joined/left; debug shows checks; no secret', async () => {
  const raw: string[] = [];
  const logger = createLogger('debug', (l) => raw.push(l), 'json');
  const lines = () => raw.map((l) => JSON.parse(l) as { level: string; msg: string; outage?: string });
  const matching = (re: RegExp) => lines().filter((l) => re.test(l.msg));

  const hooks = await httpReceiver();
  cleanups.push(hooks.close);
  hooks.state.answer = (path) => (path === '/broken' ? 400 : 200);
  const target = await httpTarget(200);
  cleanups.push(() => target.stop());
  const p = await startTestPharos(
    {
      probe: { region: 'london', confirmation_checks: 1, agent_offline_seconds: 30 },
      channels: [
        { name: 'ops', type: 'webhook', url: `${hooks.url}/ops` },
        { name: 'broken', type: 'webhook', url: `${hooks.url}/broken` },
      ],
      escalation_policies: [{ uuid: 'ep_ops', name: 'Ops', steps: [{ after_minutes: 0, channels: ['ops', 'broken'] }, { after_minutes: 5, channels: ['ops'] }] }],
    },
    new ManualClock(),
    logger,
  );
  cleanups.push(() => p.cleanup());

  const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'checkout', url: target.url, check_frequency: 30, escalation_policy: 'ep_ops' } })).json();
  await p.advance(31_000);
  assert.ok(matching(/^check checkout: up in \d+ ms/).length >= 1, 'debug: one line per check');

  target.respond(500);
  await p.advance(30_000);
  const outage = (await (await p.api('/v2/outages')).json()).outages[0];
  assert.ok(outage, 'the outage opened');
  assert.equal(matching(/^outage #\d+ opened: monitor "checkout" is down/).length, 1);
  assert.equal(matching(/^alert delivered: alert for outage .* via "ops"$/).length, 1);
  assert.equal(matching(/^alert failed: alert for outage .* via "broken" after 1 attempt: /).length, 1);

  await p.advance(5 * 60_000);
  assert.equal(matching(/^outage #\d+ escalated: send 2 /).length, 1);
  assert.equal(matching(/^alert delivered: escalation \(send 2\) for outage .* via "ops"$/).length, 1);

  assert.equal((await p.api(`/v2/outages/${outage.uuid}/acknowledge`, { method: 'POST', json: {} })).status, 200);
  assert.equal(matching(/^outage #\d+ acknowledged by .*: monitor "checkout"/).length, 1);

  target.respond(200);
  await p.advance(30_000);
  assert.equal(matching(/^outage #\d+ resolved: monitor "checkout" is up again after \d/).length, 1);
  assert.equal(matching(/^alert delivered: recovery for outage .* via "ops"$/).length, 1);

  const probeToken = (await p.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe', regions: ['paris'] }, { type: 'system', id: 'test', name: 'test' })).token;
  const poll = await p.api('/v1/probes/poll', { method: 'POST', token: probeToken, json: { agent: 'prb_' + 'B'.repeat(22), name: 'paris-1', region: 'paris', version: 'test', assignment: null } });
  assert.equal(poll.status, 200);
  assert.equal(matching(/^agent "paris-1" \(paris\) joined$/).length, 1);
  await p.advance(31_000);
  assert.equal(matching(/^agent "paris-1" \(paris\) left: /).length, 1);

  assert.ok(lines().every((l) => typeof l.msg === 'string' && !l.msg.includes('{')), 'messages are sentences, fields carry the data');
  const all = raw.join('');
  for (const secret of [WRITE_TOKEN, probeToken, `${hooks.url}/ops`]) assert.ok(!all.includes(secret), `never logged: ${secret.slice(0, 12)}…`);
  assert.equal(lines().filter((l) => l.level === 'debug').length, matching(/^check checkout: /).length, 'only checks are at debug level here');
});

test('log format: JSON lines by default when not on a terminal or with log.format json, human lines with text', () => {
  const out: string[] = [];
  createLogger('info', (l) => out.push(l)).info('outage #3 opened: monitor "api" is down', { outage: 'out_1', token: 'phr_secret' });
  createLogger('info', (l) => out.push(l), 'json').warn('agent "x" left');
  createLogger('info', (l) => out.push(l), 'text').error('alert failed: alert via "ops"', { attempts: 3 });
  createLogger('warn', (l) => out.push(l), 'text').info('not shown');
  assert.equal(out.length, 3);
  const first = JSON.parse(out[0]!);
  assert.deepEqual({ level: first.level, msg: first.msg, outage: first.outage, token: first.token }, { level: 'info', msg: 'outage #3 opened: monitor "api" is down', outage: 'out_1', token: '[redacted]' });
  assert.match(first.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(JSON.parse(out[1]!).level, 'warn');
  assert.match(out[2]!, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] ERROR: alert failed: alert via "ops" \{"attempts":3\}\n$/);
});
