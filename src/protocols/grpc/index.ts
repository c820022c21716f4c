import { z } from 'zod';
import { invalid } from '../../lib/errors.ts';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  grpc_service: z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters'),
  grpc_tls: z.boolean({ error: 'must be a boolean' }),
};

/**
 * grpc: the standard health check `grpc.health.v1.Health/Check` for `grpc_service` ("" = the whole
 * server) at `url` (a host) and `port`, over TLS (system roots) when `grpc_tls`; up on SERVING.
 */
export const grpc = {
  fields,
  defaults: { grpc_service: '', grpc_tls: false },
  urlMeaning: 'a host name or IP (host:port or a URL also work); `port` required unless the url carries one',
  label: 'gRPC health',
  target(url, port) {
    const t = hostTarget(url, port);
    if (t.port === null) throw invalid('port', 'is required for protocol "grpc" unless the url carries a port');
    return t;
  },
  loadProbe: async () => (await import('./probe.ts')).grpcProbe,
} satisfies ProtocolDefinition<typeof fields>;
