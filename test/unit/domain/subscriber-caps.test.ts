import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isSupportedCountry } from 'libphonenumber-js';
import { isSmsCountry, mailboxOf, numberBlock, smsNumberAllowed } from '../../../src/domain/subscriber-caps.ts';
import { parseConfig } from '../../../src/config/load.ts';

describe('smsNumberAllowed', () => {
  test('an empty list admits nothing (SMS off)', async () => {
    assert.equal(await smsNumberAllowed('+447922123456', []), false);
  });
  test('ISO codes admit valid numbers of that country only; calling codes every number under them', async () => {
    assert.equal(await smsNumberAllowed('+447922123456', ['GB']), true);
    assert.equal(await smsNumberAllowed('+447911123456', ['GB']), false, 'Guernsey');
    assert.equal(await smsNumberAllowed('+447911123456', ['GB', 'GG']), true);
    assert.equal(await smsNumberAllowed('+12015550123', ['US']), true);
    assert.equal(await smsNumberAllowed('+18765550123', ['US']), false, 'Jamaica');
    assert.equal(await smsNumberAllowed('+18765550123', ['+1']), true);
    assert.equal(await smsNumberAllowed('+15551234567', ['US']), false, 'no US area code 555');
    assert.equal(await smsNumberAllowed('+88216123456', ['GB', 'US', '+1', '+44']), false, 'international networks');
    assert.equal(await smsNumberAllowed('+88216123456', ['+882']), true, 'only when named');
  });
});

test('isSmsCountry answers as libphonenumber-js isSupportedCountry for every 1–3 letter code of either case, and names that are not codes', () => {
  const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'];
  const codes = [...letters, ...letters.flatMap((a) => letters.map((b) => a + b))];
  for (const a of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') for (const b of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') codes.push(a + b + c);
  codes.push('', ' GB', 'GB ', 'constructor', '__proto__', 'hasOwnProperty', 'toString', '001', '+44', 'UK', '💥');
  let supported = 0;
  for (const code of codes) {
    assert.equal(isSmsCountry(code), isSupportedCountry(code as never), code);
    if (isSmsCountry(code)) supported++;
  }
  assert.equal(supported, 245, 'every country of the metadata');
});

test('numberBlock: the first digits after +', () => {
  assert.equal(numberBlock('+447922123456', 8), '44792212');
  assert.equal(numberBlock('+1201', 8), '1201');
});

test('mailboxOf: lower case, +tag removed, Gmail dots and googlemail.com folded', () => {
  assert.equal(mailboxOf('Victim+7@Example.com'), 'victim@example.com');
  assert.equal(mailboxOf('victim@example.com'), 'victim@example.com');
  assert.equal(mailboxOf('j.doe+x@googlemail.com'), 'jdoe@gmail.com');
  assert.equal(mailboxOf('J.D.O.E@gmail.com'), 'jdoe@gmail.com');
  assert.equal(mailboxOf('j.doe@example.com'), 'j.doe@example.com', 'dots matter elsewhere');
  assert.equal(mailboxOf('+tag@example.com'), '+tag@example.com', 'a local part that starts with + keeps it');
});

test('config: sms_countries takes ISO codes and calling codes, refuses anything else; empty by default', () => {
  assert.deepEqual(parseConfig({}).status_pages.subscriptions.sms_countries, []);
  assert.deepEqual(parseConfig({ status_pages: { subscriptions: { sms_countries: ['GB', '+1', '+882'] } } }).status_pages.subscriptions.sms_countries, ['GB', '+1', '+882']);
  for (const bad of ['UK', 'gb', '+0', '44', '+1234'])
    assert.throws(() => parseConfig({ status_pages: { subscriptions: { sms_countries: [bad] } } }), /sms_countries\.0: must be an ISO 3166 country code such as GB \(not UK\)/, bad);
});
