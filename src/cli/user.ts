import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { maintenanceConfig, type CliCommand } from './command.ts';
import { sqliteNativeBinding } from '../lib/sea.ts';
import { createCore } from '../core/index.ts';
import { systemActor } from '../core/audit-log.ts';
import { ROLES, type Role } from '../domain/user.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { silentLogger } from '../lib/logger.ts';
import { storageTarget } from '../config/storage.ts';
import { openStore } from '../store/open.ts';

/** Usage lines of `pharos user` (also shown in the main usage). */
export const USER_USAGE = `  user create --email E --role admin|editor|viewer [--name N] [--password-stdin]
                                                          create a console user (without --password-stdin a
                                                          random password is made and printed once)
  user reset-password --email E [--password-stdin]        set a new password; every session of the user ends
  user disable-totp --email E                             turn off a user's two-factor sign-in (a lost phone)`;

/** The first line of standard input (a password piped in: `echo "$PW" | pharos user create …`). */
async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/**
 * `pharos user create|reset-password` (issue 16): people of the console from the command line.
 * Prints one line: the generated password when none was piped in, else a confirmation.
 * @returns the exit code
 * @throws AppError 400 on missing or bad flags, 404 unknown user (reset-password), 409 taken email
 */
export async function runUserCommand(argv: string[], env: Record<string, string | undefined>, nativeBinding: object | undefined): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
  });
  const sub = positionals[0];
  if (sub !== 'create' && sub !== 'reset-password' && sub !== 'disable-totp') throw new AppError(400, 'cli.invalid', `user: give create, reset-password or disable-totp\n${USER_USAGE}`);
  if (!values.email) throw new AppError(400, 'cli.invalid', '--email: is required');
  if (sub === 'disable-totp') {
    const config = maintenanceConfig(env, values.config);
    const store = openStore(storageTarget(config, nativeBinding));
    try {
      const core = createCore({ store, clock: systemClock, logger: silentLogger, config });
      const account = await core.accounts.byEmail(values.email);
      if (!account) throw new AppError(404, 'cli.not_found', `no user with email ${values.email}`);
      await core.accounts.clearTotp(account.uuid, systemActor('cli', 'pharos user disable-totp'));
      process.stdout.write(`two-factor sign-in off for ${account.email}\n`);
      return 0;
    } finally {
      store.close();
    }
  }
  const role = (values.role ?? (sub === 'create' ? undefined : 'viewer')) as Role | undefined;
  if (sub === 'create' && !(ROLES as readonly string[]).includes(role ?? '')) throw new AppError(400, 'cli.invalid', `--role: must be one of ${ROLES.join(', ')}`);
  const generated = !values['password-stdin'];
  const password = generated ? randomBytes(15).toString('base64url') : await readStdinLine();
  const config = maintenanceConfig(env, values.config);
  const store = openStore(storageTarget(config, nativeBinding));
  try {
    const core = createCore({ store, clock: systemClock, logger: silentLogger, config });
    let email: string;
    if (sub === 'create') {
      email = (await core.accounts.create({ email: values.email, name: values.name, role: role!, password }, systemActor('cli', 'pharos user create'))).email;
    } else {
      const account = await core.accounts.byEmail(values.email);
      if (!account) throw new AppError(404, 'cli.not_found', `no user with email ${values.email}`);
      await core.accounts.setPassword(account.uuid, password, systemActor('cli', 'pharos user reset-password'));
      email = account.email;
    }
    process.stdout.write(generated ? `${password}\n` : `${sub === 'create' ? 'created' : 'password set for'} ${email}\n`);
    return 0;
  } finally {
    store.close();
  }
}

/** `pharos user …` as a CLI command (src/main.ts table). */
export const command: CliCommand = {
  help: `Usage: pharos user <create|reset-password|disable-totp> [--config FILE] --email E [options]
${USER_USAGE}`,
  run: (args, env) => runUserCommand(args, env, sqliteNativeBinding(env)),
};
