import { createCore } from '../core/index.ts';
import { systemActor } from '../core/audit-log.ts';
import { TOKEN_SCOPES, type TokenScope } from '../domain/user.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { silentLogger } from '../lib/logger.ts';
import { maintenanceConfig, parse, withStore, type CliCommand } from './command.ts';

/** `--region a --region b,c` → ['a', 'b', 'c'] (blanks dropped; validated by the users service). */
const regionList = (values: readonly string[] | undefined): string[] =>
  (values ?? []).flatMap((v) => v.split(',')).map((r) => r.trim()).filter((r) => r !== '');

/** `pharos token create|list|revoke|grant`: API tokens, straight in the database. */
export const command: CliCommand = {
  help: `Usage: pharos token create --email E [--name N] [--scope read|write|probe] [--region R]... [--config FILE]
       pharos token list [--config FILE]
       pharos token revoke ID [--config FILE]
       pharos token grant ID --region R [--region R]... [--config FILE]
create   creates an API token for the user E (created when new) and prints only the token
         (scope default: write; probe: for \`pharos agent\`, bound to the regions given with
         --region, repeatable or a comma list: its agents may serve those regions only)
list     lists tokens: id, scope, regions (probe), user, name, created, active|revoked (never their secrets)
revoke   revokes the token with id ID (key_…, from \`pharos token list\`)
grant    replaces the regions of the probe token ID (e.g. one made before tokens had regions)
Works on <data_dir> directly; unset \${VARIABLES} in config.yaml do not matter here.`,
  async run(args, env) {
    const { values, positionals } = parse(args, { email: { type: 'string' }, name: { type: 'string' }, scope: { type: 'string' }, region: { type: 'string', multiple: true } });
    const [sub, arg] = positionals;
    if (sub !== 'create' && sub !== 'list' && sub !== 'revoke' && sub !== 'grant') {
      throw new AppError(400, 'cli.invalid', `token: ${sub ? `unknown subcommand '${sub}'` : 'give a subcommand'}: create, list, revoke or grant (pharos token --help)`);
    }
    const config = maintenanceConfig(env, values.config);
    const regions = regionList(values.region);
    return withStore(config, env, async (store) => {
      const core = createCore({ store, clock: systemClock, logger: silentLogger, config });
      if (sub === 'create') {
        const scope = (values.scope ?? 'write') as TokenScope;
        if (!TOKEN_SCOPES.includes(scope)) throw new AppError(400, 'cli.invalid', `--scope: must be one of ${TOKEN_SCOPES.join(', ')}`);
        if (!values.email) throw new AppError(400, 'cli.invalid', '--email: is required');
        if (scope === 'probe' && regions.length === 0) throw new AppError(400, 'cli.invalid', '--region: a probe token needs the regions its agents serve (--region frankfurt, repeatable or a comma list)');
        if (scope !== 'probe' && regions.length > 0) throw new AppError(400, 'cli.invalid', '--region: only probe tokens are bound to regions');
        const { token } = await core.users.createToken({ email: values.email, name: values.name ?? values.email, scope, regions }, systemActor('cli', 'pharos token create'));
        process.stdout.write(token + '\n');
        return 0;
      }
      if (sub === 'list') {
        for (const t of await core.users.listTokens()) {
          const scope = t.scope === 'probe' ? `probe:${t.regions.join(',') || '(no region)'}` : t.scope;
          process.stdout.write(`${t.id}\t${scope}\t${t.user.email}\t${t.name}\t${new Date(t.createdAt).toISOString()}\t${t.revokedAt ? 'revoked' : 'active'}\n`);
        }
        return 0;
      }
      if (!arg) throw new AppError(400, 'cli.invalid', `token ${sub}: give the token id (key_…) from \`pharos token list\``);
      if (sub === 'grant') {
        if (regions.length === 0) throw new AppError(400, 'cli.invalid', '--region: give the regions to grant (repeatable or a comma list)');
        const t = await core.users.grantRegions(arg, regions, systemActor('cli', 'pharos token grant'));
        process.stdout.write(`${t.id} may serve ${t.regions.join(', ')}\n`);
        return 0;
      }
      if (!(await core.users.revokeToken(arg, systemActor('cli', 'pharos token revoke')))) throw new AppError(404, 'cli.not_found', `no active token with id ${arg}`);
      process.stdout.write(`revoked ${arg}\n`);
      return 0;
    });
  },
};
