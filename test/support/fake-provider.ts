import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertKind, AlertMessage, Channel } from '../../src/alerting/channels/index.ts';
import { ChannelError } from '../../src/alerting/channels/index.ts';

/** A request a fake provider got. */
export interface FakeRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, when it was JSON. */
  json: any;
}

/**
 * A local stand-in for a provider's HTTP API on 127.0.0.1: records every request and answers each
 * with `answer` (status, JSON body), as the provider's documentation describes its answers.
 */
export async function fakeProvider(answer: { status: number; body: string } = { status: 200, body: '{}' }) {
  const state = { answer, requests: [] as FakeRequest[] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null; // not JSON (a form body or nothing): the test reads `body`
      }
      state.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json });
      res.writeHead(state.answer.status, { 'content-type': 'application/json' }).end(state.answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    last: (): FakeRequest => {
      const r = state.requests.at(-1);
      assert.ok(r, 'the fake provider got no request');
      return r;
    },
    reset(answer: { status: number; body: string } = { status: 200, body: '{}' }) {
      state.answer = answer;
      state.requests = [];
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The console link of {@link sampleMessage}. */
export const SAMPLE_LINK = 'https://pharos.example.com/outages/outage_1';

/** A message as the alerting core renders it: an outage of monitor "API" (INC-42, major). */
export function sampleMessage(kind: AlertKind = 'alert'): AlertMessage {
  return {
    kind,
    title: kind === 'recovery' ? 'RECOVERED: API (https://api.example.com) after 4m 10s' : 'DOWN: API (https://api.example.com)',
    text: 'Expected 200, got 503. Down since 2025-03-04T05:06:07.000Z (INC-42, major).',
    outage: {
      uuid: 'outage_1',
      incidentNumber: 42,
      description: 'Expected 200, got 503',
      severity: 'major',
      startDate: '2025-03-04T05:06:07.000Z',
      endDate: kind === 'recovery' ? '2025-03-04T05:10:17.000Z' : null,
      durationMs: 250_000,
      monitor: { uuid: 'mon_x', name: 'API', url: 'https://api.example.com', protocol: 'http' },
    },
    escalation: null,
    link: SAMPLE_LINK,
    createdAt: '2025-03-04T05:07:00.000Z',
  };
}

/**
 * Sends {@link sampleMessage} and expects a {@link ChannelError} of the given permanence whose
 * message contains none of `secrets` and which carries the provider's answer.
 */
export async function expectFailure(channel: Channel, permanent: boolean, secrets: readonly string[]): Promise<ChannelError> {
  const err = await channel.send(sampleMessage(), { deliveryId: 'dlv_fail' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ChannelError, `expected a ChannelError, got ${String(err)}`);
  assert.equal(err.permanent, permanent, err.message);
  for (const s of secrets) assert.ok(!err.message.includes(s), `the error names a secret: ${err.message}`);
  return err;
}
