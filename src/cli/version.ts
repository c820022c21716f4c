import { buildTarget, sqliteNativeBinding } from '../lib/sea.ts';
import { sqliteVersion } from '../store/db.ts';
import { PHAROS_VERSION } from '../version.ts';
import { parse, type CliCommand } from './command.ts';

/** `pharos version`: Pharos, Node and SQLite versions and the build target; needs no config or data dir. */
export const command: CliCommand = {
  help: `Usage: pharos version
Prints the Pharos, Node and SQLite versions and the target (e.g. linux-arm64, single executable).
Needs no configuration and no data dir.`,
  async run(args, env) {
    parse(args, {});
    const sqlite = sqliteVersion(sqliteNativeBinding(env));
    process.stdout.write(`pharos ${PHAROS_VERSION}\nnode ${process.version}\nsqlite ${sqlite}\ntarget ${buildTarget()}\n`);
    return 0;
  },
};
