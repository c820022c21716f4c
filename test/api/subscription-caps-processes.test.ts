import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { sharedPostgres, tempDir, TEST_DRIVER } from '../support/pharos.ts';
import { freePort, spawnPharos, waitFor, type PharosProcess } from '../support/process.ts';
import { httpReceiver } from '../support/receivers.ts';

// Two `pharos serve` processes on one PostgreSQL database (issue 30 point 3): their transactions
// really run at the same time (in-process instances take turns on one event loop), so this is where
// a check-then-act over the send counts would let two codes through. Time-independent: the rule
// under test (one code per number until it is typed back) has no clock window to straddle.
const TOKEN = 'caps-processes-token-0123456789ab';
const dataDir = tempDir();
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

test('24 concurrent requests for one number on 8 pages, split over two processes: one code is texted', { skip: TEST_DRIVER !== 'postgres' && 'PostgreSQL only (two processes share a database)', timeout: 120_000 }, async () => {
  const twilio = await httpReceiver();
  twilio.state.answer = () => 201;
  cleanups.push(twilio.close);
  const url = await (await sharedPostgres()).createDatabase(`capsproc${process.pid}`);
  const configFile = join(dataDir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      'public_url: https://status.example.com',
      'channels:',
      '  - name: texts',
      '    type: twilio',
      `    account_sid: AC${'ab'.repeat(16)}`,
      '    auth_token: tw-token',
      "    from: '+15550001111'",
      "    to: ['+15550009999']",
      `    api_url: ${twilio.url}`,
      'status_pages:',
      '  trust_proxy: true',
      '  subscriptions:',
      "    sms_countries: ['+44']",
      '    per_address_per_hour: 1000',
      '    per_page_per_hour: 1000',
      '',
    ].join('\n'),
  );
  const start = async () => {
    const env = { PHAROS_LISTEN: `127.0.0.1:${await freePort()}`, PHAROS_DATA_DIR: dataDir, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_CONFIG: configFile, PHAROS_DATABASE_URL: url };
    const proc: PharosProcess = await spawnPharos(env);
    cleanups.push(() => proc.child.kill('SIGKILL'));
    return proc;
  };
  const a = await start();
  const b = await start();
  for (let i = 0; i < 8; i++) {
    const res = await fetch(`${a.url}/v2/statuspages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `Page ${i}`, subdomain: `page${i}`, subscribe: { enabled: true, sms: true } }),
    });
    assert.equal(res.status, 201, await res.text());
  }
  const number = '+447922123456';
  const answers = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      fetch(`${(i % 2 ? a : b).url}/status/page${i % 8}/subscribe`, {
        method: 'POST',
        body: new URLSearchParams({ channel: 'sms', target: number }),
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
      }).then(async (r) => ({ status: r.status, text: await r.text() })),
    ),
  );
  assert.deepEqual([...new Set(answers.map((x) => x.status))].sort(), [200, 429]);
  assert.ok(answers.filter((x) => x.status === 429).every((x) => /a code was texted to this number and has not been entered yet/.test(x.text)));
  // Every answer is in, so every transaction has committed: the outbox holds what will be sent.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const queued = await client.query("SELECT count(*)::int AS n FROM alerts WHERE channel LIKE 'subscriber:%'");
    assert.equal(queued.rows[0].n, 1, 'one code queued');
    const pages = await client.query('SELECT count(DISTINCT statuspage_id)::int AS n FROM subscribers WHERE target = $1', [number]);
    assert.equal(pages.rows[0].n, 1, 'pending on one page only');
  } finally {
    await client.end();
  }
  await waitFor('the code texted', async () => twilio.received.length === 1);
});
