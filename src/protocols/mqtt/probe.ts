import { MqttClient } from 'mqtt';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/**
 * MQTT checks with the `mqtt` package (MQTT.js; this file, and so the package, is loaded on the first mqtt check): one connection per check
 * (no reconnects, clean session, a random `pharos-…` client id) made by Pharos itself — plain TCP, or
 * TLS with the system's roots for `mqtts://` — from `probe.source_address` when set, credentials
 * from the URL (percent-decoded). With `mqtt_topic`: SUBSCRIBE at QoS 0 and wait for a message whose
 * payload contains `mqtt_expected` (any message when null), all within the check's timeout.
 * Reasons: the broker's CONNACK refusal (`Connection refused: Not authorized`), `subscription to
 * t refused`, `no message on t within 5 s`, `message on t was "off", expected "on"`, or the network's.
 */
export const mqttProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const ms = spec.timeoutSeconds * 1000;
    const u = new URL(spec.target.url);
    const secure = u.protocol === 'mqtts:';
    const host = spec.target.host;
    const port = spec.target.port ?? (secure ? 8883 : 1883);
    const topic = String(spec.settings.mqtt_topic ?? '');
    const expected = (spec.settings.mqtt_expected as string | null | undefined) ?? null;
    const local = options.sourceAddress ? { localAddress: options.sourceAddress } : {};
    let socketError: unknown = null;
    const client = new MqttClient(
      () => {
        const s = secure ? tlsConnect({ host, port, servername: host, ...local }) : netConnect({ host, port, ...local });
        s.on('error', (e) => (socketError ??= e));
        return s;
      },
      {
        protocolVersion: 4,
        clean: true,
        reconnectPeriod: 0,
        connectTimeout: ms,
        keepalive: 0,
        clientId: `pharos-${Math.random().toString(16).slice(2, 10)}`,
        ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
        ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      },
    );
    let timer: NodeJS.Timeout | undefined;
    try {
      const reason = await new Promise<string | null>((resolve) => {
        const network = (e: unknown) => describeNetworkError(e, host, spec.timeoutSeconds);
        timer = setTimeout(() => resolve(socketError ? network(socketError) : topic && client.connected ? `no message on ${topic} within ${spec.timeoutSeconds} s` : `Timeout after ${spec.timeoutSeconds} s`), ms);
        // The broker's refusals come as errors with its numeric reason code; everything else is the network's.
        client.on('error', (e) => resolve(typeof (e as { code?: unknown }).code === 'number' ? e.message : network(socketError ?? e)));
        client.on('close', () => resolve(socketError ? network(socketError) : 'Connection closed by the broker'));
        client.on('connect', () => {
          if (!topic) return resolve(null);
          client.on('message', (t, payload) => {
            const text = payload.toString('utf8');
            if (expected === null || text.includes(expected)) resolve(null);
            else resolve(`message on ${t} was ${JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text)}, expected ${JSON.stringify(expected)}`);
          });
          client.subscribe(topic, { qos: 0 }, (err, granted) => {
            if (err) resolve(`subscription to ${topic} refused (${err.message})`);
            else if (granted?.some((g) => (g.qos & 0x80) !== 0)) resolve(`subscription to ${topic} refused`);
          });
        });
      });
      return { ok: reason === null, latencyMs: latency(), statusCode: 0, reason };
    } catch (e) {
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: describeNetworkError(e, host, spec.timeoutSeconds) };
    } finally {
      clearTimeout(timer);
      client.end(true);
    }
  },
  async close() {},
});
