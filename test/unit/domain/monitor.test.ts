import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MonitorBody, monitorDefaults, parseExpectedStatus, probeTarget, resolveMonitorSettings, statusMatches } from '../../../src/domain/monitor.ts';

const none = () => false;

test('expected status patterns: single code, class, class range, numeric range', () => {
  assert.deepEqual(parseExpectedStatus('200'), { min: 200, max: 200 });
  assert.deepEqual(parseExpectedStatus('2xx'), { min: 200, max: 299 });
  assert.deepEqual(parseExpectedStatus('1xx-3xx'), { min: 100, max: 399 });
  assert.deepEqual(parseExpectedStatus('200-204'), { min: 200, max: 204 });
  assert.equal(statusMatches('2xx', 503), false);
  assert.equal(statusMatches('1xx-3xx', 302), true);
});

test('defaults fill a minimal create body', () => {
  const body = MonitorBody.parse({ name: 'A', url: 'https://example.com' });
  const s = resolveMonitorSettings(body, monitorDefaults('london'), none);
  assert.equal(s.protocol, 'http');
  assert.equal(s.checkFrequencySeconds, 30);
  assert.deepEqual(s.regions, ['london']);
  assert.equal(s.settings.expected_status_code, '2xx');
  assert.equal(s.timeoutSeconds, 10);
});

test('numbers as strings are refused, expected_status_code takes a number', () => {
  assert.equal(MonitorBody.safeParse({ name: 'A', url: 'x', check_frequency: '30' }).success, false);
  const body = MonitorBody.parse({ name: 'A', url: 'https://e.com', expected_status_code: 200 });
  assert.equal(resolveMonitorSettings(body, monitorDefaults('london'), none).settings.expected_status_code, '200');
});

test('cross-field rules name the field', () => {
  const d = monitorDefaults('london');
  assert.throws(() => resolveMonitorSettings(MonitorBody.parse({ name: 'A', url: 'https://e.com', check_frequency: 10, timeout: 20 }), d, none), /timeout: must not be longer/);
  assert.throws(() => resolveMonitorSettings(MonitorBody.parse({ name: 'A', url: 'db.local', protocol: 'port' }), d, none), /port: is required/);
  assert.throws(() => resolveMonitorSettings(MonitorBody.parse({ name: 'A', url: 'ftp://x' }), d, none), /url: /);
  assert.throws(() => resolveMonitorSettings(MonitorBody.parse({ name: 'A', url: 'https://e.com', escalation_policy: 'ep_x' }), d, none), /escalation_policy: unknown/);
  assert.throws(() => resolveMonitorSettings(MonitorBody.parse({ name: 'A', url: 'https://e.com', expected_status_code: '3xx-1xx' }), d, none), /expected_status_code/);
});

test('port and icmp targets accept a host, host:port or a URL', () => {
  assert.deepEqual(probeTarget({ url: 'tcp://db.local:5432', protocol: 'port', port: null }), { url: 'tcp://db.local:5432', host: 'db.local', port: 5432 });
  assert.deepEqual(probeTarget({ url: '127.0.0.1:22', protocol: 'port', port: null }), { url: '127.0.0.1:22', host: '127.0.0.1', port: 22 });
  assert.equal(probeTarget({ url: '::1', protocol: 'icmp', port: null }).host, '::1');
  assert.throws(() => probeTarget({ url: 'not a host!', protocol: 'icmp', port: null }), /url: /);
});
