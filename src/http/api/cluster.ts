import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { iso } from '../../domain/time.ts';
import { AppError } from '../../lib/errors.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { COMMON_ERRORS, ErrorSchema, json } from './common.ts';

const Instance = z
  .object({
    id: z.string().openapi({ description: '`ins_…`, new at every start of a `pharos serve`' }),
    address: z.string().openapi({ description: '`host:port` of its listener (host name of the machine)' }),
    version: z.string(),
    startedAt: z.string(),
    lastSeenAt: z.string().openapi({ description: 'its last heartbeat (every 2 s on PostgreSQL)' }),
    leader: z.boolean(),
  })
  .openapi('ClusterInstance');

const Cluster = z
  .object({
    mode: z.enum(['single', 'postgres']).openapi({ description: '`single`: SQLite, one instance, always the leader' }),
    self: z.string().openapi({ description: 'the instance that answered' }),
    leader: z.string().nullable().openapi({ description: 'the leader’s id; null during a fail-over' }),
    instances: z.array(Instance).openapi({ description: 'instances seen in the last 10 minutes, leader first, then by start' }),
  })
  .openapi('Cluster');

/** /v1/cluster (read or write token): the instances sharing the database and which one leads (issue 22). */
export function clusterRouter(deps: Pick<HttpDeps, 'cluster'>) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Cluster'],
      summary: 'The Pharos instances on this database, their last heartbeat and the leader',
      responses: { 200: json(Cluster, 'The cluster'), 503: json(ErrorSchema, 'The database cannot be asked now'), ...COMMON_ERRORS },
    }),
    async (c) => {
      if (!deps.cluster) throw new AppError(503, 'cluster.unavailable', 'no cluster view in this process');
      const v = await deps.cluster();
      return c.json({ ...v, instances: v.instances.map((i) => ({ ...i, startedAt: iso(i.startedAt), lastSeenAt: iso(i.lastSeenAt) })) }, 200);
    },
  );
  return app;
}
