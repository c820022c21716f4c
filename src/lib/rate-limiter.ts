/**
 * rate-limiter-flexible's in-memory limiter and its result, without the package's index: the index
 * (`require('rate-limiter-flexible')`) loads every store adapter it ships (Redis, Mongo, PostgreSQL,
 * MySQL, DynamoDB, Prisma, …), ~1.4 MB of V8 heap for a process that only ever counts in memory
 * (issue 38 point 1, idle footprint). These two files are the same classes the index exports
 * (`lib/RateLimiterMemory.js`, `lib/RateLimiterRes.js`; RateLimiterMemory requires that same
 * RateLimiterRes file, so `instanceof RateLimiterRes` holds for what `consume` rejects with), typed
 * by the package's own declarations (./rate-limiter-module.d.ts).
 */
import Memory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import Res from 'rate-limiter-flexible/lib/RateLimiterRes.js';
import type * as Flexible from 'rate-limiter-flexible';

/** rate-limiter-flexible's `RateLimiterMemory`: `consume(key)` resolves, or rejects with a {@link RateLimiterRes} when the key's points are used up. */
export const RateLimiterMemory: typeof Flexible.RateLimiterMemory = Memory;
/** An instance of rate-limiter-flexible's `RateLimiterMemory`. */
export type RateLimiterMemory = Flexible.RateLimiterMemory;
/** rate-limiter-flexible's `RateLimiterRes`: what a refused `consume` rejects with (`msBeforeNext`, ms until the next point). */
export const RateLimiterRes: typeof Flexible.RateLimiterRes = Res;
/** An instance of rate-limiter-flexible's `RateLimiterRes`. */
export type RateLimiterRes = Flexible.RateLimiterRes;
