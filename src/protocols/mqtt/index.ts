import { z } from 'zod';
import { urlTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  mqtt_topic: z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters'),
  mqtt_expected: z.string({ error: 'must be a string or null' }).max(1024, 'must be at most 1024 characters').nullable(),
};

/**
 * mqtt: connect to the broker at `url` (`mqtt://[user:password@]host:port`, `mqtts://` for TLS with
 * the system's roots; ports 1883 / 8883 by default; MQTT 3.1.1), then, with `mqtt_topic`, subscribe
 * and wait within the timeout for a message on it (a retained one counts) that contains
 * `mqtt_expected` (null: any message). Without a topic the accepted connection is the check.
 */
export const mqtt = {
  fields,
  defaults: { mqtt_topic: '', mqtt_expected: null as string | null },
  urlMeaning: 'the broker: mqtt://user:password@host:1883 (mqtts:// for TLS)',
  label: 'MQTT',
  target: (url) => {
    const t = urlTarget(url, ['mqtt:', 'mqtts:'], 'a broker URL mqtt://user:password@host:port (mqtts:// for TLS)');
    return { ...t, port: t.port ?? (t.url.startsWith('mqtts:') ? 8883 : 1883) };
  },
  loadProbe: async () => (await import('./probe.ts')).mqttProbe,
} satisfies ProtocolDefinition<typeof fields>;
