import type { Core } from '../core/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Principal } from '../domain/user.ts';

/** Hono environment: the authenticated principal is set by the auth middleware on API routes. */
export interface AppEnv {
  Variables: { principal: Principal };
}

/** The narrow dependencies of the HTTP layer (house rule 5: no singletons). */
export interface HttpDeps {
  core: Core;
  clock: Clock;
  logger: Logger;
  /** Prometheus text exposition of the process's metrics. */
  metricsText: () => Promise<string>;
  metricsContentType: string;
  version: string;
}
