/**
 * The two files of rate-limiter-flexible that src/lib/rate-limiter.ts loads instead of the package's
 * index (CommonJS, `module.exports = <class>`): the classes its own types.d.ts declares.
 */
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import type { RateLimiterMemory as Memory } from 'rate-limiter-flexible';
  const RateLimiterMemory: typeof Memory;
  export default RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import type { RateLimiterRes as Res } from 'rate-limiter-flexible';
  const RateLimiterRes: typeof Res;
  export default RateLimiterRes;
}
