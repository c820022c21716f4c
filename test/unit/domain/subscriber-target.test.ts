import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostMatches, webhookTargetProblem } from '../../../src/domain/subscriber-target.ts';

const strict = { allowedHosts: [], allowPrivateTargets: false };

test('providers\' webhook URLs pass; their hosts are per kind', () => {
  assert.equal(webhookTargetProblem('slack', 'https://hooks.slack.com/services/T0/B0/xyz', strict), null);
  assert.equal(webhookTargetProblem('slack', 'https://HOOKS.SLACK.COM./services/T0/B0/xyz', strict), null);
  assert.equal(webhookTargetProblem('teams', 'https://contoso.webhook.office.com/webhookb2/abc', strict), null);
  assert.equal(webhookTargetProblem('teams', 'https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x', strict), null);
  assert.match(webhookTargetProblem('teams', 'https://hooks.slack.com/services/x', strict)!, /Teams incoming-webhook URL/);
  assert.match(webhookTargetProblem('slack', 'https://hooks.slack.com.evil.example/services/x', strict)!, /Slack incoming-webhook URL/);
  assert.match(webhookTargetProblem('teams', 'https://webhook.office.com.evil.example/x', strict)!, /Teams/);
});

test('http, credentials, other hosts and non-public literals are refused; the operator may allow hosts', () => {
  assert.match(webhookTargetProblem('slack', 'http://hooks.slack.com/services/x', strict)!, /https/);
  assert.match(webhookTargetProblem('slack', 'not a url', strict)!, /https webhook URL/);
  assert.match(webhookTargetProblem('slack', 'https://a:b@hooks.slack.com/x', strict)!, /user name or password/);
  const any = { allowedHosts: ['*'], allowPrivateTargets: false };
  assert.equal(webhookTargetProblem('slack', 'https://chat.example.com/hook', any), null);
  for (const t of ['https://127.0.0.1/x', 'https://0x7f000001/x', 'https://[::ffff:127.0.0.1]/x', 'https://169.254.169.254/x', 'https://[fe80::1]/x']) {
    assert.match(webhookTargetProblem('slack', t, any)!, /must not point at/, t);
  }
  const some = { allowedHosts: ['chat.example.com', '*.corp.example'], allowPrivateTargets: false };
  assert.equal(webhookTargetProblem('teams', 'https://chat.example.com/hook', some), null);
  assert.equal(webhookTargetProblem('teams', 'https://a.b.corp.example/hook', some), null);
  assert.match(webhookTargetProblem('teams', 'https://corp.example/hook', some)!, /chat\.example\.com, \*\.corp\.example/);
});

test('allow_private_targets turns the checks off (http and loopback allowed), but not non-http schemes', () => {
  const unsafe = { allowedHosts: [], allowPrivateTargets: true };
  assert.equal(webhookTargetProblem('slack', 'http://127.0.0.1:8080/hook', unsafe), null);
  assert.match(webhookTargetProblem('slack', 'file:///etc/passwd', unsafe)!, /http\(s\)/);
});

test('host patterns', () => {
  assert.equal(hostMatches('a.example.com', '*.example.com'), true);
  assert.equal(hostMatches('example.com', '*.example.com'), false);
  assert.equal(hostMatches('badexample.com', '*.example.com'), false);
  assert.equal(hostMatches('x.y', '*'), true);
  assert.equal(hostMatches('example.com', 'Example.com.'), true);
});
