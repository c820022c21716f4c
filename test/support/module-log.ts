/**
 * A preload for Pharos processes started by tests (`node --import <this file> --import tsx
 * src/main.ts …`): appends the URL of every module the process loads — `import` and `require()`
 * alike, in every thread that inherits it through NODE_OPTIONS — to the file named by
 * PHAROS_TEST_MODULE_LOG, one line each, as it loads (issue 38: a configuration that does not use a
 * protocol, a database driver, SSO or mail never loads their libraries). Node's own synchronous
 * module hooks (`module.registerHooks`, Node ≥ 22.15), so nothing in src/ knows about it.
 * Plain erasable TypeScript: Node strips the types itself, before tsx is registered.
 */
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.PHAROS_TEST_MODULE_LOG;
if (file) {
  const seen = new Set<string>();
  registerHooks({
    load(url, context, nextLoad) {
      if (!seen.has(url)) {
        seen.add(url);
        appendFileSync(file, `${url}\n`);
      }
      return nextLoad(url, context);
    },
  });
}
