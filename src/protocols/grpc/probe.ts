import { getCACertificates } from 'node:tls';
import { Client, credentials, status as Status, type ChannelCredentials, type ServiceError } from '@grpc/grpc-js';
import type { CheckOutcome } from '../../domain/check.ts';
import type { ProbeFactory } from '../types.ts';
import type { grpc } from './index.ts';

type Settings = typeof grpc.defaults;

/** `grpc.health.v1.HealthCheckResponse.ServingStatus`. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;

/**
 * `HealthCheckRequest { string service = 1; }` in protobuf wire format: the health protocol's one
 * message is small enough to write by hand, which keeps .proto files (and a loader that reads them
 * from disk, which the single executable has not got) out of the binary.
 */
function encodeRequest(service: string): Buffer {
  const s = Buffer.from(service, 'utf8');
  if (s.length === 0) return Buffer.alloc(0);
  const len: number[] = [];
  for (let n = s.length; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([0x0a, ...len]), s]);
}

/** `HealthCheckResponse { ServingStatus status = 1; }` → the status number (0 when absent). */
function decodeResponse(b: Buffer): number {
  for (let i = 0; i < b.length; ) {
    const tag = b[i++]!;
    let v = 0;
    for (let shift = 0; i < b.length; shift += 7) {
      const byte = b[i++]!;
      v |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    if (tag === 0x08) return v;
    if ((tag & 7) === 2) i += v; // skip a length-delimited field
  }
  return 0;
}

/**
 * gRPC health checks with @grpc/grpc-js: one unary `grpc.health.v1.Health/Check` per check with
 * the check's timeout as deadline. Reasons: `NOT_SERVING`, `SERVICE_UNKNOWN (name)`, `gRPC
 * UNAVAILABLE: …`, `Timeout after 10 s`. grpc-js cannot bind a local address, so
 * `probe.source_address` does not apply to grpc checks (docs/api.md "Check types").
 */
export const grpcProbe: ProbeFactory = () => {
  // grpc-js builds its own secure context from its own roots; give it Node's default CA set (the
  // bundled roots plus NODE_EXTRA_CA_CERTS), as tls and https checks use, built once per probe.
  let tlsCredentials: ChannelCredentials | null = null;
  const secure = () => (tlsCredentials ??= credentials.createSsl(Buffer.from(getCACertificates('default').join('\n'))));
  return {
    check(spec): Promise<CheckOutcome> {
      const s = spec.settings as Settings;
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const address = `${spec.target.host.includes(':') ? `[${spec.target.host}]` : spec.target.host}:${spec.target.port}`;
      const client = new Client(address, s.grpc_tls ? secure() : credentials.createInsecure(), { 'grpc.max_reconnect_backoff_ms': 1000 });
      return new Promise<CheckOutcome>((resolve) => {
        const done = (reason: string | null) => {
          client.close();
          resolve({ ok: reason === null, latencyMs: latency(), statusCode: 0, reason });
        };
        client.makeUnaryRequest(
          '/grpc.health.v1.Health/Check',
          encodeRequest,
          decodeResponse,
          s.grpc_service,
          { deadline: Date.now() + spec.timeoutSeconds * 1000 },
          (err: ServiceError | null, value?: number) => {
            if (err) return done(describe(err, s.grpc_service, spec.timeoutSeconds));
            const name = SERVING_STATUS[value ?? 0] ?? `status ${value}`;
            done(name === 'SERVING' ? null : s.grpc_service ? `${name} (${s.grpc_service})` : name);
          },
        );
      });
    },
    async close() {},
  };
};

function describe(err: ServiceError, service: string, timeoutSeconds: number): string {
  if (err.code === Status.DEADLINE_EXCEEDED) return `Timeout after ${timeoutSeconds} s`;
  if (err.code === Status.NOT_FOUND) return `SERVICE_UNKNOWN (${service || 'server'})`;
  if (err.code === Status.UNIMPLEMENTED) return 'The server has no gRPC health service';
  if (err.code === Status.UNAVAILABLE && /ECONNREFUSED/.test(err.details)) return 'Connection refused';
  return `gRPC ${Status[err.code] ?? err.code}: ${err.details}`;
}
