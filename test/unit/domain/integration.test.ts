import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { CHANNEL_KINDS, CHANNEL_TYPES, secretFieldsOf, type ChannelType } from '../../../src/domain/channels/index.ts';
import { secret } from '../../../src/domain/channels/common.ts';
import { isSecretPath, keepMaskedSecrets, maskSettings, MASK, openSettings, sealSettings, secretPaths } from '../../../src/domain/integration.ts';
import { auditDiff, integrationSecretTest } from '../../../src/domain/audit.ts';
import { policyTargets, usesTarget, type EscalationPolicy } from '../../../src/domain/escalation-policy.ts';
import { AppError } from '../../../src/lib/errors.ts';

// Issue 32 points 2 and 5: which settings are secret, masking, the `***` merge rule, the audit diff.

/** The zod schema under optional/default/pipe wrappers. */
function inner(s: z.ZodType): z.ZodType {
  const def = (s as unknown as { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } }).def;
  if ((def.type === 'optional' || def.type === 'default' || def.type === 'prefault' || def.type === 'nullable') && def.innerType) return inner(def.innerType);
  if (def.type === 'pipe' && def.in) return inner(def.in);
  return s;
}

test('every secret field of every kind names a field of its schema (records with *), and every field built with `secret` is listed', () => {
  for (const type of CHANNEL_TYPES) {
    const schema = CHANNEL_KINDS[type].schema as unknown as z.ZodObject;
    for (const spec of secretFieldsOf(type)) {
      let s: z.ZodType = schema;
      for (const seg of spec.split('.')) {
        s = inner(s);
        const def = (s as unknown as { def: { type: string; valueType?: z.ZodType } }).def;
        if (seg === '*') {
          assert.equal(def.type, 'record', `${type}: ${spec}: * needs a record`);
          s = def.valueType!;
        } else {
          assert.equal(def.type, 'object', `${type}: ${spec}`);
          const field = (s as z.ZodObject).shape[seg];
          assert.ok(field, `${type}: ${spec} is not a field of the schema`);
          s = field as z.ZodType;
        }
      }
    }
    for (const [field, s] of Object.entries(schema.shape)) {
      if (s === secret) assert.ok(secretFieldsOf(type).includes(field), `${type}.${field} is built with secret but not listed in secretFields`);
    }
  }
});

const webhook = { url: 'https://hooks.example/abc?key=K1', secret: 'hmac-S1', headers: { Authorization: 'Bearer T1', 'X-Trace': 'T2' }, timeout_seconds: 10 };

test('secretPaths expands * over a record and skips absent values; maskSettings shows *** there and leaves the rest', () => {
  assert.deepEqual(secretPaths('webhook', webhook), [['url'], ['secret'], ['headers', 'Authorization'], ['headers', 'X-Trace']]);
  assert.deepEqual(secretPaths('webhook', { url: 'https://x.example', headers: {} }), [['url']]);
  assert.deepEqual(secretPaths('email', { from: 'a@b.c', to: ['x@y.z'], smtp: { host: 'h', password: 'pw' } }), [['smtp', 'password']]);
  assert.deepEqual(secretPaths('email', { from: 'a@b.c', to: ['x@y.z'], smtp: { host: 'h' } }), []);
  assert.deepEqual(maskSettings('webhook', webhook), { url: MASK, secret: MASK, headers: { Authorization: MASK, 'X-Trace': MASK }, timeout_seconds: 10 });
  assert.equal(webhook.url, 'https://hooks.example/abc?key=K1', 'the input is not changed');
  assert.deepEqual(maskSettings('ntfy', { topic: 'alerts', server: 'https://ntfy.sh' }), { topic: 'alerts', server: 'https://ntfy.sh' }, 'no token, nothing masked');
  assert.ok(isSecretPath('webhook', ['headers', 'Anything']));
  assert.ok(!isSecretPath('webhook', ['headers']) && !isSecretPath('webhook', ['timeout_seconds']));
});

test('the *** merge rule: a secret sent back as *** keeps the stored value; a new value replaces it; *** with nothing stored is a 400 naming the field', () => {
  const stored = webhook;
  const incoming = { url: MASK, secret: 'hmac-NEW', headers: { Authorization: MASK, 'X-New': 'n' }, timeout_seconds: 20 };
  assert.deepEqual(keepMaskedSecrets('webhook', incoming, stored), {
    url: 'https://hooks.example/abc?key=K1',
    secret: 'hmac-NEW',
    headers: { Authorization: 'Bearer T1', 'X-New': 'n' },
    timeout_seconds: 20,
  });
  assert.equal(incoming.url, MASK, 'the input is not changed');
  assert.throws(
    () => keepMaskedSecrets('webhook', { url: MASK, headers: { 'X-Other': MASK } }, stored),
    (e: unknown) => e instanceof AppError && e.status === 400 && /^headers\.X-Other: is "\*\*\*" but no value is stored/.test(e.message),
  );
  assert.deepEqual(keepMaskedSecrets('slack', { url: MASK }, { url: 'https://hooks.slack.com/services/A' }), { url: 'https://hooks.slack.com/services/A' });
  assert.deepEqual(keepMaskedSecrets('ntfy', { topic: MASK }, { topic: 't' }), { topic: MASK }, 'only secret fields follow the rule');
});

test('sealSettings keeps *** in the settings and each secret sealed apart; openSettings restores the plaintext', () => {
  const seal = (s: string) => `SEALED(${Buffer.from(s).toString('hex')})`;
  const open = (s: string) => Buffer.from(/^SEALED\((.*)\)$/.exec(s)![1]!, 'hex').toString();
  const { settings, secrets } = sealSettings('webhook', webhook, seal);
  assert.deepEqual(settings, maskSettings('webhook', webhook));
  assert.deepEqual(secrets.map((s) => s.path), [['url'], ['secret'], ['headers', 'Authorization'], ['headers', 'X-Trace']]);
  assert.ok(!JSON.stringify({ settings, secrets }).includes('K1'));
  assert.deepEqual(openSettings(settings, secrets, open), webhook);
  assert.throws(() => sealSettings('slack', { url: MASK }, seal), /keepMaskedSecrets/, '*** is never sealed as if it were the secret');
});

test('auditDiff: changed fields only, nested fields dotted, secrets *** on both sides (changed or not told apart from set/removed only)', () => {
  const kind: ChannelType = 'webhook';
  const before = { name: 'hook', enabled: true, settings: webhook };
  const after = { name: 'hook2', enabled: true, settings: { ...webhook, secret: 'hmac-S2', headers: { Authorization: 'Bearer T1' }, timeout_seconds: 30 } };
  const diff = auditDiff(before, after, integrationSecretTest(kind));
  assert.deepEqual(diff, {
    name: { before: 'hook', after: 'hook2' },
    'settings.secret': { before: MASK, after: MASK },
    'settings.headers.X-Trace': { before: MASK },
    'settings.timeout_seconds': { before: 10, after: 30 },
  });
  const created = auditDiff(null, { name: 'p', settings: { token: 'tk', topic: 't', tags: ['a'] } }, integrationSecretTest('ntfy'));
  assert.deepEqual(created, { name: { after: 'p' }, 'settings.token': { after: MASK }, 'settings.topic': { after: 't' }, 'settings.tags': { after: ['a'] } });
  assert.ok(!JSON.stringify(auditDiff(before, null, integrationSecretTest(kind))).match(/K1|S1|T1|T2/), 'a delete masks too');
  assert.deepEqual(auditDiff({ a: [1, 2] }, { a: [1, 2] }), {}, 'equal arrays are no change');
  assert.deepEqual(auditDiff({ a: { b: 1 } }, { a: { b: 1, c: null } }), { 'a.c': { after: null } });
});

test('escalation policies: the uuids a policy targets, by type', () => {
  const p: EscalationPolicy = {
    uuid: 'ep_1',
    name: 'p',
    team: null,
    steps: [
      { delayMinutes: 0, targets: [{ type: 'integration', uuid: 'int_a' }, { type: 'user', uuid: 'user_x' }] },
      { delayMinutes: 10, targets: [{ type: 'integration', uuid: 'int_b' }, { type: 'integration', uuid: 'int_a' }] },
    ],
    repeatCount: 0,
    repeatEveryMinutes: null,
    provisioned: false,
    createdAt: 0,
    updatedAt: 0,
  };
  assert.deepEqual(policyTargets(p, 'integration'), ['int_a', 'int_b']);
  assert.deepEqual(policyTargets(p, 'schedule'), []);
  assert.ok(usesTarget(p, 'integration', 'int_b'));
  assert.ok(!usesTarget(p, 'integration', 'user_x'));
});
