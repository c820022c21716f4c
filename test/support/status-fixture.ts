import { smtpReceiver } from './receivers.ts';
import { startTestPharos, type TestPharos } from './pharos.ts';
import { httpTarget } from './targets.ts';

const MIN = 60_000;

/** What {@link statusFixture} built. */
export interface StatusFixture {
  p: TestPharos;
  smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  page: { uuid: string; subdomain: string };
  ids: { web: string; api: string; search: string; secret: string; backup: string; payments: string };
  close(): Promise<void>;
}

/**
 * A real Pharos (manual clock, real SQLite, an email channel to a real SMTP server) with a page of
 * two sections, a group and five services, after 2 h 10 min of real checks against loopback targets:
 * - section "Website": monitor "Web" (200 → operational) and group "Backend" with monitor "API"
 *   (503 → major outage) and healthcheck "Nightly backup" (never pinged → no data);
 * - section "Partners": component "Payments provider" (degraded) and monitor "Search" (operational).
 * A monitor "Secret admin" exists but is on no page. `page` options are merged over the page body.
 */
export async function statusFixture(page: Record<string, unknown> = {}, config: Record<string, unknown> = {}): Promise<StatusFixture> {
  const ok = await httpTarget(200);
  const failing = await httpTarget(503);
  const smtp = await smtpReceiver();
  const p = await startTestPharos({
    channels: [{ name: 'mail', type: 'email', from: 'status@example.com', to: ['ops@example.com'], smtp: { host: '127.0.0.1', port: smtp.port } }],
    ...config,
  });
  const post = async (path: string, json: unknown) => {
    const res = await p.api(path, { method: 'POST', json });
    if (res.status !== 201 && res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const monitor = async (name: string, url: string) => (await post('/v1/monitors', { name, url, check_frequency: 600 })).uuid as string;
  const web = await monitor('Web', `${ok.url}/web`);
  const api = await monitor('API', `${failing.url}/api`);
  const search = await monitor('Search', `${ok.url}/search`);
  const secret = await monitor('Secret admin', `${ok.url}/secret-admin-panel`);
  const backup = (await post('/v1/healthchecks', { name: 'Nightly backup', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' })).healthcheck.uuid as string;
  const payments = (await post('/v1/components', { name: 'Payments provider', status: 'degraded' })).uuid as string;
  const sp = (
    await post('/v2/statuspages', {
      name: 'Acme Status',
      subdomain: 'acme',
      description: 'Live status of Acme services',
      languages: ['en', 'de'],
      sections: [
        {
          name: 'Website',
          services: [
            { monitor_uuid: web, description: 'The public site' },
            { monitor_uuid: api, name_shown: 'Backend', is_group: true, services: [{ monitor_uuid: api, name_shown: 'API' }, { monitor_uuid: backup }] },
          ],
        },
        { name: 'Partners', services: [{ monitor_uuid: payments }, { monitor_uuid: search }] },
      ],
      ...page,
    })
  ).statuspage;
  await p.advance(130 * MIN);
  return {
    p,
    smtp,
    page: { uuid: sp.uuid, subdomain: sp.subdomain },
    ids: { web, api, search, secret, backup, payments },
    async close() {
      await p.cleanup();
      await Promise.all([ok.stop(), failing.stop(), smtp.close()]);
    },
  };
}
