import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkInterfaceInfo } from 'node:os';
import { listenUrls } from '../../../src/lib/listen-urls.ts';

const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal, netmask: '', mac: '', cidr: null, ...(family === 'IPv6' ? { scopeid: 0 } : {}) }) as NetworkInterfaceInfo;
const INTERFACES = {
  eth0: [nic('192.168.1.5', 'IPv4'), nic('fe80::1', 'IPv6'), nic('2001:db8::5', 'IPv6')],
  lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
  wg0: [nic('10.8.0.2', 'IPv4')],
};

test('0.0.0.0: every IPv4 address, loopback first', () => {
  assert.deepEqual(listenUrls('0.0.0.0', 8080, INTERFACES), ['http://127.0.0.1:8080', 'http://192.168.1.5:8080', 'http://10.8.0.2:8080']);
});

test(':: (dual stack): IPv4 and IPv6 addresses, IPv6 bracketed, link-local left out', () => {
  assert.deepEqual(listenUrls('::', 8080, INTERFACES), ['http://127.0.0.1:8080', 'http://[::1]:8080', 'http://192.168.1.5:8080', 'http://10.8.0.2:8080', 'http://[2001:db8::5]:8080']);
});

test('a specific address is the one URL; no interfaces still gives loopback', () => {
  assert.deepEqual(listenUrls('192.168.1.5', 9000, INTERFACES), ['http://192.168.1.5:9000']);
  assert.deepEqual(listenUrls('::1', 9000, INTERFACES), ['http://[::1]:9000']);
  assert.deepEqual(listenUrls('0.0.0.0', 9000, {}), ['http://127.0.0.1:9000']);
});
