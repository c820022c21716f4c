/**
 * The backup check thread (store/backup-files.ts `checkCopyOffThread`): runs `checkDbFileAgainst`
 * on a fresh copy (`PRAGMA integrity_check`, about a second per GB) off the event loop, loading the
 * addon file the main thread loaded when it names one (one SQLite library in the process, as the
 * checkpoint worker does), posts the answer and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkDbFileAgainst } from './db-file-check.ts';

const init = workerData as { file: string; latest: number; addonFile?: string | undefined };
let nativeBinding: object | undefined;
if (init.addonFile) {
  const module = { exports: {} as object };
  process.dlopen(module, init.addonFile);
  nativeBinding = module.exports;
}
parentPort!.postMessage(checkDbFileAgainst(init.file, init.latest, { nativeBinding, ownCopy: true }));
