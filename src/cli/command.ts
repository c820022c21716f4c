import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { sqliteNativeBinding } from '../lib/sea.ts';
import { storageTarget } from '../config/storage.ts';
import type { Store } from '../store/index.ts';
import { openStore } from '../store/open.ts';

/**
 * One `pharos <command>` (src/cli/<command>.ts, listed in the COMMANDS table of src/main.ts).
 * main.ts prints `help` for `pharos <command> --help`/`-h` without calling `run`.
 */
export interface CliCommand {
  /** Full help: a `Usage: pharos …` line, the options, notes. Ends without a newline. */
  help: string;
  /**
   * Runs the command.
   * @param args the arguments after the command name (options are the command's own: see parse)
   * @param env environment (process.env)
   * @returns the process exit code
   * @throws AppError / TypeError (bad options) → main prints its message on one line, exit 1
   */
  run(args: string[], env: Env): Promise<number>;
}

/** The environment a command reads (process.env in production, a copy in tests). */
export type Env = Record<string, string | undefined>;

/**
 * parseArgs in strict mode with the options every command shares (`--config FILE`): an unknown
 * option or a missing value throws a TypeError whose message names it.
 */
export function parse<O extends ParseArgsOptionsConfig>(args: string[], options: O) {
  return parseArgs({ args, options: { config: { type: 'string' }, ...options }, allowPositionals: true, strict: true });
}

/**
 * Configuration for maintenance commands (backup, token, user, import): config.yaml + env like
 * `serve`, except that a `${NAME}` whose variable is unset does not stop them (they send no alert;
 * loadConfig's `placeholder` mode).
 */
export function maintenanceConfig(env: Env, file?: string): Readonly<Config> {
  return loadConfig(env, file, { unsetVariables: 'placeholder' });
}

/**
 * Opens the store of the config (`storage.driver`: SQLite in `data_dir`, loading the addon of the
 * single executable first, or PostgreSQL) for `fn`, closing it afterwards.
 * @throws Error from the addon loader (one line naming the folders tried) or AppError from openStore
 */
export async function withStore<T>(config: Readonly<Config>, env: Env, fn: (store: Store, nativeBinding: object | undefined) => Promise<T> | T): Promise<T> {
  const nativeBinding = config.storage.driver === 'sqlite' ? sqliteNativeBinding(env, config.data_dir) : undefined;
  const store = openStore(storageTarget(config, nativeBinding));
  try {
    return await fn(store, nativeBinding);
  } finally {
    store.close();
  }
}
