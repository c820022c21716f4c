import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { createProbes } from '../../engine/probes/index.ts';
import { daemonDir, freePort, runAs, startDaemon, type Daemon } from '../../../test/support/daemons.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// A real mosquitto (Debian) on a loopback port, anonymous access off, one user from a password
// file, no persistence; its log names every client's address.
let broker: Daemon;
let port = 0;
let url = '';
before(async () => {
  const dir = daemonDir('mosquitto');
  port = await freePort();
  const passwd = join(dir, 'passwd');
  execFileSync('mosquitto_passwd', ['-c', '-b', passwd, 'pharos', 's3cret']);
  const ids = runAs('mosquitto');
  if (ids.uid !== undefined) chownSync(passwd, ids.uid, ids.gid!);
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, [`listener ${port} 127.0.0.1`, 'allow_anonymous false', `password_file ${passwd}`, 'persistence false', 'log_dest stderr', 'log_type all', ''].join('\n'));
  broker = await startDaemon('mosquitto', 'mosquitto', ['-c', conf], port);
  url = `mqtt://pharos:s3cret@127.0.0.1:${port}`;
});
after(() => broker?.stop());

/** Publishes `payload` to `topic` as a retained message (what a device's status topic holds). */
const retain = async (topic: string, payload: string) => {
  const c = await connectAsync(`mqtt://127.0.0.1:${port}`, { username: 'pharos', password: 's3cret', reconnectPeriod: 0 });
  try {
    await c.publishAsync(topic, payload, { retain: true, qos: 1 });
  } finally {
    await c.endAsync();
  }
};

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.mqtt.close());
const mqttSpec = (over: Record<string, unknown> = {}) => specOf({ url, protocol: 'mqtt', timeoutSeconds: 2, ...over });

probeContract('mqtt', () => probes.mqtt, { pass: async () => mqttSpec(), fail: async () => mqttSpec({ url: url.replace('s3cret', 'wrong') }) });

describe('mqtt probe', () => {
  test('connect only; a retained message with and without an expected payload; the broker\'s refusal; silence', async () => {
    assert.deepEqual(pick(await probes.mqtt.check(mqttSpec())), { ok: true, statusCode: 0, reason: null });
    await retain('home/door', 'state: closed');
    assert.equal((await probes.mqtt.check(mqttSpec({ mqtt_topic: 'home/door' }))).ok, true);
    assert.equal((await probes.mqtt.check(mqttSpec({ mqtt_topic: 'home/door', mqtt_expected: 'closed' }))).ok, true);
    assert.equal((await probes.mqtt.check(mqttSpec({ mqtt_topic: 'home/door', mqtt_expected: 'open' }))).reason, 'message on home/door was "state: closed", expected "open"');
    assert.equal((await probes.mqtt.check(mqttSpec({ url: url.replace('s3cret', 'wrong') }))).reason, 'Connection refused: Not authorized');
    assert.equal((await probes.mqtt.check(mqttSpec({ mqtt_topic: 'home/silent', timeoutSeconds: 1 }))).reason, 'no message on home/silent within 1 s');
    assert.equal((await probes.mqtt.check(mqttSpec({ url: `mqtt://127.0.0.1:${await freePort()}` }))).reason, 'Connection refused');
  });
  test('probe.source_address: the broker saw the client from the configured address', async () => {
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await from.mqtt.check(mqttSpec())).ok, true);
    } finally {
      await from.mqtt.close();
    }
    assert.match(broker.output(), /New client connected from 127\.0\.0\.3:\d+/);
  });
});

describe('mqtt monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with the payload that came, recovery; the password is a secret', async () => {
    await retain('garage/door', 'closed');
    const created = await upDownRecover(p, { name: 'Garage door', url, protocol: 'mqtt', mqtt_topic: 'garage/door', mqtt_expected: 'closed', timeout: 2 }, {
      breakIt: () => retain('garage/door', 'open'),
      reason: 'message on garage/door was "open", expected "closed"',
      fixIt: () => retain('garage/door', 'closed'),
    });
    assert.equal(created.url, `mqtt://pharos:***@127.0.0.1:${port}`);
    assert.equal(created.mqtt_topic, 'garage/door');
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: 'http://broker', protocol: 'mqtt' } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /^url: must be a broker URL/);
  });
});
