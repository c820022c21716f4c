import type { Clock } from '../lib/clock.ts';
import { randomBase62 } from '../domain/ids.ts';
import { renderAlert, type AlertMessage } from '../domain/alert.ts';
import { followsAcknowledgements } from '../domain/channels/index.ts';
import type { ChannelTestAnswer, ChannelTester, ChannelTestResult } from '../core/channels.ts';
import { ChannelError, type Channel } from './channels/types.ts';
import { integrationSender } from './integration-channels.ts';
import { createChannel } from './channels/index.ts';

/**
 * The sample messages of a test delivery at `now`: an alert for a made-up outage of a monitor
 * named "Pharos test alert" (incident 0, minor), linked to `<public_url>/outages`, and its
 * recovery. Titles start with `TEST`, so nobody mistakes one for a real outage.
 */
export function sampleMessages(publicUrl: string, now: number): { alert: AlertMessage; recovery: AlertMessage } {
  const uuid = `outage_test${randomBase62(18)}`;
  const source = {
    uuid,
    incidentNumber: 0,
    description: 'This is a test alert sent from Pharos; nothing is down',
    severity: 'minor' as const,
    startAt: now,
    endAt: null,
    monitor: { uuid: 'mon_test', name: 'Pharos test alert', url: publicUrl, protocol: 'http' },
  };
  const link = `${publicUrl.replace(/\/+$/, '')}/outages`;
  const alert = renderAlert('alert', source, null, link, now);
  const recovery = renderAlert('recovery', { ...source, endAt: now }, null, link, now);
  return { alert: { ...alert, title: `TEST ${alert.title}` }, recovery: { ...recovery, title: `TEST ${recovery.title}` } };
}

/**
 * A {@link ChannelTester}: builds a throwaway sender from the target's plaintext settings, sends the
 * sample alert (and, to kinds that follow an outage's lifecycle — PagerDuty, Opsgenie — its recovery,
 * so no test incident stays open), reports each answer and closes the sender. Delivery errors are
 * reported, not thrown; settings that are not a valid config of the kind are reported the same way.
 */
export function createChannelTester(deps: { publicUrl: string; clock: Clock }): ChannelTester {
  return async (target) => {
    const result: ChannelTestResult = { channel: target.name, type: target.kind, ok: true, answers: [], error: null };
    let channel: Channel;
    try {
      channel = integrationSender(target);
    } catch (e) {
      return { ...result, ok: false, error: (e as Error).message };
    }
    const { alert, recovery } = sampleMessages(deps.publicUrl, deps.clock.now());
    const sends: [ChannelTestAnswer['kind'], AlertMessage][] = [['alert', alert]];
    if (followsAcknowledgements(target.kind)) sends.push(['recovery', recovery]);
    try {
      for (const [kind, message] of sends) {
        try {
          const answer = await channel.send(message, { deliveryId: `dlv_test${randomBase62(18)}` });
          result.answers.push({ kind, ...answer });
        } catch (e) {
          const answer = e instanceof ChannelError ? e.answer : null;
          result.answers.push({ kind, status: answer?.status ?? null, body: answer?.body ?? (e as Error).message });
          result.ok = false;
          result.error = (e as Error).message;
          break;
        }
      }
    } finally {
      await channel.close();
    }
    return result;
  };
}
