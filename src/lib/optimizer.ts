import { setFlagsFromString } from 'node:v8';

/**
 * Turns V8's optimizing compiler (TurboFan) on once a long-running command has started (`pharos
 * serve`, `pharos agent`). The single executable starts with `--no-turbofan` (src/build/sea-config.ts,
 * issue 38 point 1): starting builds ~3,100 zod schemas, which made seven of zod's own functions hot
 * enough for TurboFan, and compiling those seven paged in ~6 MB of TurboFan's machine code that an
 * idle process then held for nothing (docs/PERFORMANCE.md "Idle footprint"). From this call on,
 * functions that grow hot are optimized as before: V8 reads the flag at each tiering decision, and
 * Node leaves V8's flags unfrozen after start (`--no-freeze-flags-after-init`), which
 * test/unit/optimizer.test.ts checks on this Node. Short CLI commands never call it. From source
 * (`node --import tsx src/main.ts`) TurboFan is on from the start and this changes nothing.
 */
export function enableOptimizer(): void {
  setFlagsFromString('--turbofan');
}
