import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ipLiteralOf, isPublicAddress, rateLimitKey } from '../../../src/lib/ip-ranges.ts';

test('only global unicast addresses are public; every special-purpose range and mapped form is not', () => {
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) assert.equal(isPublicAddress(a), true, a);
  const refused = [
    '127.0.0.1', '127.255.255.254', '0.0.0.0', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200',
    '224.0.0.1', '255.255.255.255', '192.0.2.1', '198.18.0.1',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1',
    '64:ff9b::7f00:1', '2002:7f00:1::', '2001:db8::1',
    'localhost', 'example.com', '', 'not an address',
  ];
  for (const a of refused) assert.equal(isPublicAddress(a), false, a);
});

test('IP literals of URL hosts: brackets removed, names are not literals', () => {
  assert.equal(ipLiteralOf('[::ffff:7f00:1]'), '::ffff:7f00:1');
  assert.equal(ipLiteralOf('127.0.0.1'), '127.0.0.1');
  assert.equal(ipLiteralOf('hooks.slack.com'), null);
  // Numeric forms reach here normalized by the URL parser.
  for (const host of ['0x7f000001', '2130706433', '017700000001', '127.1', '[::ffff:127.0.0.1]']) {
    const literal = ipLiteralOf(new URL(`https://${host}/`).hostname);
    assert.ok(literal !== null && !isPublicAddress(literal), host);
  }
});

test('rate-limit keys: IPv4 as is, IPv4-mapped unwrapped, IPv6 by its /64', () => {
  assert.equal(rateLimitKey('203.0.113.7'), '203.0.113.7');
  assert.equal(rateLimitKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(rateLimitKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(rateLimitKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(rateLimitKey('unknown'), 'unknown');
});
