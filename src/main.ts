#!/usr/bin/env node
import type { CliCommand } from './cli/command.ts';
import { AppError } from './lib/errors.ts';
import { installBundledLibs } from './lib/sea.ts';

/**
 * The CLI's commands: name → one-line summary (for `pharos --help`) and its module in src/cli/,
 * loaded only when that command runs. Adding a command is one line here (keep the table in
 * alphabetical order, so branches adding different commands touch different lines) plus its module
 * exporting `command: CliCommand` (src/cli/command.ts); docs/architecture.md "CLI".
 */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ command: CliCommand }> }> = {
  agent: { summary: 'run a remote probe for one region', load: () => import('./cli/agent.ts') },
  alert: { summary: 'send a sample alert through a channel and print the answer', load: () => import('./cli/alert.ts') },
  backup: { summary: 'online backup of the database to a file', load: () => import('./cli/backup.ts') },
  healthcheck: { summary: 'ask the local server\'s /healthz (exit 0 when healthy; container HEALTHCHECK)', load: () => import('./cli/healthcheck.ts') },
  import: { summary: 'import monitors, pages and notifications from Uptime Kuma', load: () => import('./cli/import.ts') },
  'install-service': { summary: 'install and start the systemd service (root)', load: () => import('./cli/install-service.ts') },
  restore: { summary: 'replace the database with a checked backup (server stopped)', load: () => import('./cli/restore.ts') },
  serve: { summary: 'run the monitor, API and status pages', load: () => import('./cli/serve.ts') },
  storage: { summary: 'copy a SQLite install into PostgreSQL (storage copy)', load: () => import('./cli/storage.ts') },
  token: { summary: 'create, list or revoke API tokens', load: () => import('./cli/token.ts') },
  'uninstall-service': { summary: 'stop and remove the systemd service, keeping the data (root)', load: () => import('./cli/uninstall-service.ts') },
  user: { summary: 'create console users, reset passwords, turn off two-factor sign-in', load: () => import('./cli/user.ts') },
  version: { summary: 'print the Pharos, Node and SQLite versions and the target', load: () => import('./cli/version.ts') },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return `Usage: pharos <command> [options]      (pharos <command> --help for its options)
Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}
Environment: PHAROS_CONFIG, PHAROS_LISTEN, PHAROS_DATA_DIR, PHAROS_PUBLIC_URL, PHAROS_ADMIN_TOKEN, PHAROS_AGENT_TOKEN, PHAROS_DATABASE_URL`;
}

/** Runs one CLI command; returns the process exit code (2: usage error). */
async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined) {
    process.stderr.write(usage() + '\n');
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? args[0] : undefined;
    if (topic === undefined) {
      process.stdout.write(usage() + '\n');
      return 0;
    }
    return main([topic, '--help']);
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    process.stderr.write(`pharos: unknown command '${name}' (pharos --help lists the commands)\n`);
    return 2;
  }
  const { command } = await entry.load();
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(command.help + '\n');
    return 0;
  }
  return command.run(args, process.env);
}

// In the single executable, libraries a start does not need are bundled apart (src/build/bundle.ts).
installBundledLibs();
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    const known = e instanceof AppError || e instanceof TypeError || (e instanceof Error && /^cannot load the SQLite addon/.test(e.message));
    process.stderr.write(`pharos: ${known ? (e as Error).message : String((e as Error)?.stack ?? e)}\n`);
    // 3: the database was written by a newer Pharos (a downgrade refused; docs/operations.md "Upgrading").
    process.exit(e instanceof AppError && e.code === 'store.newer_schema' ? 3 : 1);
  },
);
