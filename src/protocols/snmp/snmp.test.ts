import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createProbes } from '../../engine/probes/index.ts';
import { freePort } from '../../../test/support/daemons.ts';
import { setupAdmin } from '../../../test/support/console.ts';
import { startTestPharos, tempDir, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { createThroughForm } from '../../../test/support/protocol-form.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// Debian's real snmpd on a loopback UDP port with a config of its own (-C: no system config, no
// MIB files): a read-only v2c community, a v3 user for authPriv (SHA + AES), and a `pass_persist`
// script (plain `pass` answers are cached by snmpd)
// serving two values the test sets through files: .1.3.6.1.4.1.99999.1.0 (a string state) and
// .1.3.6.1.4.1.99999.2.0 (an integer temperature). Its log names every client's address.
const BASE = '1.3.6.1.4.1.99999';
const SYS_DESCR = '1.3.6.1.2.1.1.1.0';
const SYS_UPTIME = '1.3.6.1.2.1.1.3.0';
const dir = tempDir('pharos-snmpd-');
let agent: ChildProcess;
let log = '';
let port = 0;
const setState = (s: string) => writeFileSync(join(dir, 'state'), `${s}\n`);
const setTemp = (n: number) => writeFileSync(join(dir, 'temp'), `${n}\n`);

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.snmp.close());
const snmpSpec = (over: Record<string, unknown> = {}) => specOf({ url: '127.0.0.1', protocol: 'snmp', port, timeoutSeconds: 1, snmp_community: 'pharos-ro', ...over });
const v3 = { snmp_version: '3', snmp_user: 'pharosv3', snmp_security_level: 'authPriv', snmp_auth_protocol: 'sha', snmp_auth_key: 'authpass123', snmp_priv_protocol: 'aes', snmp_priv_key: 'privpass123' };

before(async () => {
  port = await freePort();
  setState('ok');
  setTemp(41);
  const pass = join(dir, 'pass.sh');
  writeFileSync(pass, [
    '#!/bin/sh',
    'while read -r cmd; do',
    '  case "$cmd" in',
    '    PING) echo PONG ;;',
    '    get) read -r oid',
    '      case "$oid" in',
    `        .${BASE}.1.0) echo "$oid"; echo string; cat ${join(dir, 'state')} ;;`,
    `        .${BASE}.2.0) echo "$oid"; echo integer; cat ${join(dir, 'temp')} ;;`,
    '        *) echo NONE ;;',
    '      esac ;;',
    '    getnext) read -r oid; echo NONE ;;',
    '    set) read -r oid; read -r value; echo not-writable ;;',
    '    *) exit 0 ;;',
    '  esac',
    'done',
    '',
  ].join('\n'), { mode: 0o755 });
  const conf = join(dir, 'snmpd.conf');
  writeFileSync(conf, [
    `agentAddress udp:127.0.0.1:${port}`,
    'rocommunity pharos-ro 127.0.0.0/8',
    'createUser pharosv3 SHA "authpass123" AES "privpass123"',
    'rouser pharosv3 priv',
    'sysDescr Pharos test agent',
    `pass_persist .${BASE} /bin/sh ${pass}`,
    '',
  ].join('\n'));
  agent = spawn('/usr/sbin/snmpd', ['-f', '-Lo', '-C', '-c', conf, '-p', join(dir, 'pid')], {
    env: { ...process.env, MIBS: '', MIBDIRS: join(dir, 'no-mibs'), SNMP_PERSISTENT_DIR: join(dir, 'persist') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  agent.stdout!.on('data', (d) => (log += d));
  agent.stderr!.on('data', (d) => (log += d));
  // Ready when it answers a GET (UDP: nothing to connect to); at most 15 s.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (agent.exitCode !== null) throw new Error(`snmpd exited with ${agent.exitCode}: ${log.slice(-2000)}`);
    if ((await probes.snmp.check(snmpSpec({ timeoutSeconds: 0.2 }))).ok) break;
    if (Date.now() > deadline) throw new Error(`snmpd did not answer on ${port}: ${log.slice(-2000)}`);
  }
});
after(async () => {
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent.once('exit', r));
    agent.kill('SIGTERM');
    await exited;
  }
});

probeContract('snmp', () => probes.snmp, { pass: async () => snmpSpec(), fail: async () => snmpSpec({ snmp_oid: `${BASE}.9.0` }) });

describe('snmp probe', () => {
  test('v2c and v3 authPriv GETs of sysDescr and sysUpTime; the comparisons', async () => {
    assert.deepEqual(pick(await probes.snmp.check(snmpSpec({ snmp_oid: SYS_DESCR }))), { ok: true, statusCode: 0, reason: null });
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: SYS_DESCR, snmp_condition: 'contains', snmp_expected: 'test agent' }))).ok, true);
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: SYS_DESCR, snmp_condition: '==', snmp_expected: 'Pharos test agent', ...v3 }))).ok, true, 'v3 authPriv');
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: SYS_UPTIME, snmp_condition: '>', snmp_expected: '0' }))).ok, true, 'sysUpTime in ticks');
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: `.${BASE}.2.0`, snmp_condition: '<', snmp_expected: '50' }))).ok, true);
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: `${BASE}.2.0`, snmp_condition: '!=', snmp_expected: '41.0' }))).reason, `${BASE}.2.0 was "41", expected != "41.0"`, 'numbers compare as numbers');
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: `${BASE}.2.0`, snmp_condition: '>=', snmp_expected: '60' }))).reason, `${BASE}.2.0 was "41", expected >= "60"`);
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: SYS_DESCR, snmp_condition: '<', snmp_expected: '3' }))).reason, `${SYS_DESCR} was "Pharos test agent", not a number to compare < 3`);
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: SYS_DESCR, snmp_condition: 'contains', snmp_expected: 'FreeBSD', ...v3 }))).reason, `${SYS_DESCR} was "Pharos test agent", expected contains "FreeBSD"`);
  });
  test('the agent\'s own refusals: no such object, v1 NoSuchName, v3 unknown user and wrong key; silence for a wrong community', async () => {
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_oid: '1.3.6.1.2.1.1.99.0' }))).reason, 'no such object 1.3.6.1.2.1.1.99.0');
    assert.match((await probes.snmp.check(snmpSpec({ snmp_oid: '1.3.6.1.2.1.1.99.0', snmp_version: '1' }))).reason ?? '', /^NoSuchName: 1\.3\.6\.1\.2\.1\.1\.99\.0$/);
    assert.equal((await probes.snmp.check(snmpSpec({ ...v3, snmp_user: 'nobody' }))).reason, 'Unknown User Name');
    assert.equal((await probes.snmp.check(snmpSpec({ ...v3, snmp_auth_key: 'wrongpass1' }))).reason, 'Wrong Digest (incorrect password, community or key)');
    assert.equal((await probes.snmp.check(snmpSpec({ snmp_community: 'wrong' }))).reason, 'no answer within 1 s', 'snmpd drops a wrong community without a word');
  });
  test('probe.source_address: the agent saw the request from the configured address', async () => {
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await from.snmp.check(snmpSpec())).ok, true);
    } finally {
      await from.snmp.close();
    }
    assert.match(log, /Connection from UDP: \[127\.0\.0\.3\]:\d+->/);
  });
});

describe('snmp monitor over the API and the console form', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with the value the agent reported, recovery (v3 authPriv); secrets masked; validation; OpenAPI', async () => {
    const created = await upDownRecover(p, { name: 'UPS state', url: '127.0.0.1', port, protocol: 'snmp', snmp_oid: `${BASE}.1.0`, snmp_condition: '==', snmp_expected: 'ok', timeout: 2, ...v3 }, {
      breakIt: () => setState('on battery'),
      reason: `${BASE}.1.0 was "on battery", expected == "ok"`,
      fixIt: () => setState('ok'),
    });
    assert.deepEqual([created.snmp_auth_key, created.snmp_priv_key, created.snmp_community, created.snmp_user], ['***', '***', '***', 'pharosv3']);
    const { uuid, ...asRead } = created as Record<string, unknown> & { uuid: string };
    const put = await p.api(`/v1/monitors/${uuid}`, { method: 'PUT', json: { ...asRead, snmp_expected: 'OK' } });
    assert.equal(put.status, 200, 'the monitor as read (keys masked) goes back: *** keeps the stored keys');
    assert.equal(p.store.monitors.get(uuid)!.settings.snmp_priv_key, 'privpass123');
    const bad = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: '127.0.0.1', protocol: 'snmp', ...body } });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { message: string }).message, message);
    };
    await bad({ snmp_oid: 'sysDescr.0' }, /^snmp_oid: must be a numeric OID/);
    await bad({ snmp_condition: '>' }, /^snmp_expected: is required/);
    await bad({ snmp_condition: '>', snmp_expected: 'high' }, /^snmp_expected: must be a number/);
    await bad({ snmp_version: '3' }, /^snmp_user: is required/);
    await bad({ ...v3, snmp_priv_key: 'short' }, /^snmp_priv_key: must be at least 8/);
    const doc = JSON.stringify(await (await p.api('/openapi.json')).json());
    for (const f of ['snmp_oid', 'snmp_condition', 'snmp_security_level']) assert.ok(doc.includes(f), `the OpenAPI document lists ${f}`);
  });
  test('made through the console form (JavaScript off): checked and up; the page shows the settings, not the community', async () => {
    const admin = await setupAdmin(p);
    const { page } = await createThroughForm(p, admin, 'snmp', { name: 'Switch', url: '127.0.0.1', port: String(port) }, { snmp_version: '2c', snmp_community: 'pharos-ro', snmp_oid: `${BASE}.2.0`, snmp_condition: '<', snmp_expected: '50' });
    assert.match(page, /id="monitor-status">up</);
    assert.match(page, /<dt>Condition<\/dt><dd>&lt;<\/dd>/);
    assert.match(page, new RegExp(`<dt>OID</dt><dd>${BASE.replaceAll('.', '\\.')}\\.2\\.0</dd>`));
    assert.doesNotMatch(page, /pharos-ro/);
  });
});
