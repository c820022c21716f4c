import { existsSync } from 'node:fs';
import { AppError } from '../lib/errors.ts';
import { parse, type CliCommand } from './command.ts';
import { DEFAULT_LAYOUT, Steps, UNIT_NAME } from './service-unit.ts';

/**
 * `pharos uninstall-service`: stops and disables the systemd service and removes its unit (issue
 * #20). The data dir, config, system user and binary stay, and it says how to remove them.
 */
export const command: CliCommand = {
  help: `Usage: pharos uninstall-service [--root DIR] [--dry-run]
As root, stops and disables ${UNIT_NAME} and removes ${DEFAULT_LAYOUT.unit}.
Keeps the data (${DEFAULT_LAYOUT.dataDir}), the configuration (/etc/pharos), the user ${DEFAULT_LAYOUT.user} and
${DEFAULT_LAYOUT.binary}; prints the commands that would remove them too.
--root DIR   remove the unit below DIR, run no command
--dry-run    print the steps, change nothing`,
  async run(args) {
    const { values } = parse(args, { root: { type: 'string' }, 'dry-run': { type: 'boolean' } });
    const steps = new Steps({ root: values.root, dryRun: values['dry-run'] ?? false });
    if (steps.live) {
      if (process.getuid?.() !== 0) throw new AppError(403, 'cli.not_root', 'uninstall-service: run it as root (sudo pharos uninstall-service), or use --root DIR / --dry-run');
      if (!existsSync('/run/systemd/system')) throw new AppError(400, 'cli.no_systemd', 'uninstall-service: systemd is not running here (no /run/systemd/system)');
    }
    steps.run(['systemctl', 'disable', '--now', UNIT_NAME], true);
    if (steps.exists(DEFAULT_LAYOUT.unit)) steps.remove(DEFAULT_LAYOUT.unit);
    else steps.say(`${DEFAULT_LAYOUT.unit} does not exist`);
    steps.run(['systemctl', 'daemon-reload']);
    steps.say(`kept: ${DEFAULT_LAYOUT.dataDir} (data), /etc/pharos (configuration), user ${DEFAULT_LAYOUT.user}, ${DEFAULT_LAYOUT.binary}`);
    steps.say(`to remove them too: rm -rf ${DEFAULT_LAYOUT.dataDir} /var/cache/pharos /etc/pharos && userdel ${DEFAULT_LAYOUT.user} && rm ${DEFAULT_LAYOUT.binary}`);
    return 0;
  },
};
