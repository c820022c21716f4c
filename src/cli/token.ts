import { createCore } from '../core/index.ts';
import { TOKEN_SCOPES, type TokenScope } from '../domain/user.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { silentLogger } from '../lib/logger.ts';
import { maintenanceConfig, parse, withStore, type CliCommand } from './command.ts';

/** `pharos token create|list|revoke`: API tokens, straight in the database. */
export const command: CliCommand = {
  help: `Usage: pharos token create --email E [--name N] [--scope read|write|probe] [--config FILE]
       pharos token list [--config FILE]
       pharos token revoke ID [--config FILE]
create   creates an API token for the user E (created when new) and prints only the token
         (scope default: write; probe: for \`pharos agent\`)
list     lists tokens: id, scope, user, name, created, active|revoked (never their secrets)
revoke   revokes the token with id ID (key_…, from \`pharos token list\`)
Works on <data_dir> directly; unset \${VARIABLES} in config.yaml do not matter here.`,
  async run(args, env) {
    const { values, positionals } = parse(args, { email: { type: 'string' }, name: { type: 'string' }, scope: { type: 'string' } });
    const [sub, arg] = positionals;
    if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') {
      throw new AppError(400, 'cli.invalid', `token: ${sub ? `unknown subcommand '${sub}'` : 'give a subcommand'}: create, list or revoke (pharos token --help)`);
    }
    const config = maintenanceConfig(env, values.config);
    return withStore(config, env, (store) => {
      const core = createCore({ store, clock: systemClock, logger: silentLogger, config });
      if (sub === 'create') {
        const scope = (values.scope ?? 'write') as TokenScope;
        if (!TOKEN_SCOPES.includes(scope)) throw new AppError(400, 'cli.invalid', `--scope: must be one of ${TOKEN_SCOPES.join(', ')}`);
        if (!values.email) throw new AppError(400, 'cli.invalid', '--email: is required');
        const { token } = core.users.createToken({ email: values.email, name: values.name ?? values.email, scope });
        process.stdout.write(token + '\n');
        return 0;
      }
      if (sub === 'list') {
        for (const t of core.users.listTokens()) {
          process.stdout.write(`${t.id}\t${t.scope}\t${t.user.email}\t${t.name}\t${new Date(t.createdAt).toISOString()}\t${t.revokedAt ? 'revoked' : 'active'}\n`);
        }
        return 0;
      }
      if (!arg) throw new AppError(400, 'cli.invalid', 'token revoke: give the token id (key_…) from `pharos token list`');
      if (!core.users.revokeToken(arg)) throw new AppError(404, 'cli.not_found', `no active token with id ${arg}`);
      process.stdout.write(`revoked ${arg}\n`);
      return 0;
    });
  },
};
