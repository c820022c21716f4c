import type { Hono } from 'hono';
import type { HttpDeps } from '../context.ts';
import type { ConsoleEnv } from './context.ts';

/** Console routes (to come). */
export function healthcheckRoutes(_app: Hono<ConsoleEnv>, _deps: HttpDeps): void {}
