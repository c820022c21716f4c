import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailAllowed } from '../../../src/domain/sso-connection.ts';

test('google_allowed_domains: only verified emails; empty list = nobody (issue 30); exact domain, any case', () => {
  assert.equal(emailAllowed('a@good.test', true, []), false, 'an empty list admits nobody (it used to admit any account of the provider)');
  assert.equal(emailAllowed('a@good.test', false, []), false, 'never an unverified one');
  assert.equal(emailAllowed(undefined, true, []), false, 'no email, no entry');
  assert.equal(emailAllowed('a@Good.Test', true, ['good.test']), true, 'case does not matter');
  assert.equal(emailAllowed('a@sub.good.test', true, ['good.test']), false, 'subdomains are not the domain');
  assert.equal(emailAllowed('a@good.test.evil', true, ['good.test']), false);
  assert.equal(emailAllowed('a@evil.test@good.test', true, ['good.test']), true, 'the domain is after the last @');
  assert.equal(emailAllowed('good.test', true, ['good.test']), false, 'not an email');
  assert.equal(emailAllowed('a@', true, []), false);
});
