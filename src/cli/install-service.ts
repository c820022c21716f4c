import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { loadConfig } from '../config/load.ts';
import { AppError } from '../lib/errors.ts';
import { isSea } from '../lib/sea.ts';
import { parse, type CliCommand } from './command.ts';
import { DEFAULT_LAYOUT, firstStartLinesIn, INITIAL_CONFIG, serviceUnit, Steps, UNIT_NAME, type ServiceLayout } from './service-unit.ts';

/** How long install-service waits for the first start's admin token/setup line in the journal. */
const FIRST_START_WAIT_MS = 20_000;

/**
 * `pharos install-service`: installs Pharos as a systemd service (issue #20). As root: copies this
 * binary to /usr/local/bin/pharos, creates the `pharos` system user, writes /etc/pharos/config.yaml
 * (when missing) and the unit, enables and starts it, then prints the first start's admin token /
 * setup link from the journal. `--root DIR` writes the files below DIR and runs nothing;
 * `--dry-run` only prints the steps; `--print-unit` prints the unit (build.sh puts it in releases).
 */
export const command: CliCommand = {
  help: `Usage: pharos install-service [--binary PATH] [--user NAME] [--config FILE] [--root DIR] [--dry-run] [--print-unit]
As root, installs Pharos as the systemd service ${UNIT_NAME}:
  copies this binary to PATH (default ${DEFAULT_LAYOUT.binary}), creates the system user NAME
  (default ${DEFAULT_LAYOUT.user}), writes FILE (default ${DEFAULT_LAYOUT.config}) unless it exists and
  ${DEFAULT_LAYOUT.unit} (dedicated user, CAP_NET_RAW for ICMP, StateDirectory ${DEFAULT_LAYOUT.dataDir},
  hardening), enables and starts it, and prints the first start's admin token / setup link.
Secrets referenced as \${NAME} in config.yaml go in ${DEFAULT_LAYOUT.secrets} (mode 0600).
--root DIR     write the files below DIR, run no command (packaging, tests)
--dry-run      print the steps, change nothing
--print-unit   print the unit file and exit
Run it again to upgrade: the binary and unit are replaced, config.yaml and the data are kept.`,
  async run(args, env) {
    const { values } = parse(args, {
      binary: { type: 'string' },
      user: { type: 'string' },
      root: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'print-unit': { type: 'boolean' },
    });
    const layout: ServiceLayout = { ...DEFAULT_LAYOUT, binary: values.binary ?? DEFAULT_LAYOUT.binary, user: values.user ?? DEFAULT_LAYOUT.user, config: values.config ?? DEFAULT_LAYOUT.config };
    if (!layout.binary.startsWith('/')) throw new AppError(400, 'cli.invalid', '--binary: must be an absolute path');
    if (!layout.config.startsWith('/')) throw new AppError(400, 'cli.invalid', '--config: must be an absolute path');
    if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(layout.user)) throw new AppError(400, 'cli.invalid', '--user: must be a system user name (lower case letters, digits, _ and -)');
    if (values['print-unit']) {
      process.stdout.write(serviceUnit(layout));
      return 0;
    }
    const steps = new Steps({ root: values.root, dryRun: values['dry-run'] ?? false });
    if (steps.live) requireSystemd();

    if (isSea()) {
      const self = realpathSync(process.execPath);
      const installed = steps.path(layout.binary);
      if (!existsSync(installed) || realpathSync(installed) !== self) steps.copy(self, layout.binary, 0o755);
      else steps.say(`${layout.binary} is this binary: kept`);
    } else {
      steps.say(`running from source: no binary copied; the unit runs ${layout.binary}`);
    }
    if (steps.run(['id', '-u', layout.user], true) === null) {
      steps.run(['useradd', '--system', '--user-group', '--home-dir', layout.dataDir, '--no-create-home', '--shell', '/usr/sbin/nologin', layout.user]);
    }
    if (steps.exists(layout.config)) steps.say(`${layout.config} exists: kept`);
    else {
      steps.write(layout.config, INITIAL_CONFIG, 0o640);
      steps.run(['chown', `root:${layout.user}`, layout.config]);
    }
    steps.write(layout.unit, serviceUnit(layout), 0o644);
    steps.run(['systemctl', 'daemon-reload']);
    const since = Math.floor(Date.now() / 1000) - 1;
    steps.run(['systemctl', 'enable', UNIT_NAME]);
    steps.run(['systemctl', 'restart', UNIT_NAME]);

    const publicUrl = configuredPublicUrl(steps, layout, env);
    if (!steps.live) {
      steps.say(`then: the first start prints its admin token / setup link (journalctl -u ${UNIT_NAME}); Pharos answers at ${publicUrl}`);
      return 0;
    }
    const first = await firstStartLines(since);
    steps.say(`${UNIT_NAME} is running: ${publicUrl} (systemctl status pharos; journalctl -u pharos)`);
    if (first.length > 0) for (const line of first) steps.say(`first start: ${line}`);
    else steps.say(`no first-start token in the journal within ${FIRST_START_WAIT_MS / 1000} s (data from an earlier install, or still starting: journalctl -u ${UNIT_NAME})`);
    steps.say(`CLI on the service's data: sudo -u ${layout.user} PHAROS_CONFIG=${layout.config} PHAROS_DATA_DIR=${layout.dataDir} ${layout.binary} token list`);
    return 0;
  },
};

function requireSystemd(): void {
  if (process.getuid?.() !== 0) throw new AppError(403, 'cli.not_root', 'install-service: run it as root (sudo pharos install-service), or use --root DIR / --dry-run');
  if (!existsSync('/run/systemd/system')) throw new AppError(400, 'cli.no_systemd', 'install-service: systemd is not running here (no /run/systemd/system); write the files with --root DIR instead');
}

/** The service's public URL as its config gives it (the config file may still be the initial one). */
function configuredPublicUrl(steps: Steps, layout: ServiceLayout, env: Record<string, string | undefined>): string {
  try {
    const file = steps.exists(layout.config) ? steps.path(layout.config) : undefined;
    return loadConfig({ ...env, PHAROS_CONFIG: undefined }, file, { unsetVariables: 'placeholder' }).public_url;
  } catch {
    return 'http://localhost:8080';
  }
}

/**
 * The first-start lines (firstStartLinesIn) of the service's journal since `since` (Unix s), waiting
 * up to FIRST_START_WAIT_MS, or none once the service logged that it listens without them.
 */
async function firstStartLines(since: number): Promise<string[]> {
  const deadline = Date.now() + FIRST_START_WAIT_MS;
  while (Date.now() < deadline) {
    let log = '';
    try {
      log = execFileSync('journalctl', ['-u', UNIT_NAME, '-o', 'cat', '--no-pager', '--since', `@${since}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      /* journal not readable yet */
    }
    const found = firstStartLinesIn(log);
    if (found.length > 0) return found;
    if (/pharos listening/.test(log)) return [];
    await new Promise((r) => setTimeout(r, 500));
  }
  return [];
}
