import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The systemd service of `pharos install-service` / `uninstall-service` (issue #20), and a small
 * executor that performs, or only prints, the file writes and commands of an install.
 */

/** Where an install puts things (all absolute paths on the target system). */
export interface ServiceLayout {
  /** The binary ExecStart runs. */
  binary: string;
  /** The dedicated system user (and group) the service runs as. */
  user: string;
  /** PHAROS_CONFIG of the service. */
  config: string;
  /** Optional EnvironmentFile with the secrets config.yaml references as `${NAME}` (mode 0600). */
  secrets: string;
  /** The unit file. */
  unit: string;
  /** The data dir: systemd's StateDirectory=pharos, i.e. /var/lib/pharos. */
  dataDir: string;
}

/** The layout install-service uses unless told otherwise. */
export const DEFAULT_LAYOUT: ServiceLayout = {
  binary: '/usr/local/bin/pharos',
  user: 'pharos',
  config: '/etc/pharos/config.yaml',
  secrets: '/etc/pharos/secrets.env',
  unit: '/etc/systemd/system/pharos.service',
  dataDir: '/var/lib/pharos',
};

/** The unit's name for systemctl. */
export const UNIT_NAME = 'pharos.service';

/**
 * The systemd unit: a dedicated user, CAP_NET_RAW only (ambient, so the system `ping` it runs can
 * open raw sockets under NoNewPrivileges), the data dir as StateDirectory (created and owned by
 * systemd, mode 0700), a cache dir for the SQLite addon fallback, and sandboxing that leaves a
 * JIT-compiling Node working (no MemoryDenyWriteExecute).
 */
export function serviceUnit(layout: ServiceLayout): string {
  return `# Written by \`pharos install-service\`; \`pharos uninstall-service\` removes it (the data stays).
[Unit]
Description=Pharos uptime monitor
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=${layout.user}
Group=${layout.user}
ExecStart=${layout.binary} serve
# systemctl reload: re-read the config (log_level applies at once; the log names keys needing a restart).
ExecReload=/bin/kill -HUP $MAINPID
Environment=PHAROS_CONFIG=${layout.config}
Environment=PHAROS_DATA_DIR=${layout.dataDir}
Environment=XDG_CACHE_HOME=/var/cache
EnvironmentFile=-${layout.secrets}
StateDirectory=pharos
StateDirectoryMode=0700
CacheDirectory=pharos
CacheDirectoryMode=0700
UMask=0077
# SIGTERM: stop accepting requests, finish checks in flight, flush results, checkpoint the WAL.
KillSignal=SIGTERM
TimeoutStopSec=30
Restart=on-failure
RestartSec=2
LimitNOFILE=65536
# ICMP monitors: the system ping needs raw sockets where ping sockets are not allowed.
AmbientCapabilities=CAP_NET_RAW
CapabilityBoundingSet=CAP_NET_RAW
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
SystemCallArchitectures=native

[Install]
WantedBy=multi-user.target
`;
}

/** config.yaml for a fresh install (only when none exists; every key is optional). */
export const INITIAL_CONFIG = `# Pharos configuration (written by \`pharos install-service\`; kept by uninstall-service).
# Every key, with its default, is explained in config.example.yaml (in the release tarball).
# Secrets referenced as \${NAME} go in /etc/pharos/secrets.env (mode 0600).
listen: "0.0.0.0:8080"
# The URL people and cron jobs reach Pharos by (default: follows listen).
# public_url: "https://pharos.example.com"
`;

/**
 * The lines of a `pharos serve` output that an operator needs after the first start: a setup link
 * (any line with `/setup/`, printed whole) and the admin API token (the line after `Admin API token
 * …:`, printed as `admin API token <token>`).
 * @param log the service's output (journalctl -o cat)
 */
export function firstStartLinesIn(log: string): string[] {
  const lines = log.split('\n');
  return lines.flatMap((l, i) => {
    if (/\/setup\//.test(l)) return [l.trim()];
    const next = lines[i + 1]?.trim();
    return /^Admin API token/.test(l) && next ? [`admin API token ${next}`] : [];
  });
}

/**
 * Performs or prints an install's steps. With `root`, paths are written below that folder and
 * commands are printed as skipped; with `dryRun`, nothing is written or run, every step is printed.
 */
export class Steps {
  constructor(
    private readonly opts: { root?: string | undefined; dryRun: boolean },
    private readonly out: (line: string) => void = (l) => process.stdout.write(l + '\n'),
  ) {}

  /** Whether commands really run (no --root, no --dry-run). */
  get live(): boolean {
    return !this.opts.root && !this.opts.dryRun;
  }

  /** The real path of an absolute target path. */
  path(p: string): string {
    return this.opts.root ? join(this.opts.root, p) : p;
  }

  exists(p: string): boolean {
    return existsSync(this.path(p));
  }

  /** Writes `content` to `p` through a temp file and a rename (mode applied before the rename). */
  write(p: string, content: string | Buffer, mode: number): void {
    this.out(`${this.opts.dryRun ? 'would write' : 'write'} ${p} (mode ${mode.toString(8)})`);
    if (this.opts.dryRun) return;
    const real = this.path(p);
    mkdirSync(dirname(real), { recursive: true, mode: 0o755 });
    writeFileSync(`${real}.tmp`, content, { mode });
    renameSync(`${real}.tmp`, real);
  }

  /** Copies a file (the binary) to `p` through a temp file and a rename, so a running copy is not disturbed. */
  copy(from: string, p: string, mode: number): void {
    this.out(`${this.opts.dryRun ? 'would copy' : 'copy'} ${from} → ${p}`);
    if (this.opts.dryRun) return;
    const real = this.path(p);
    mkdirSync(dirname(real), { recursive: true, mode: 0o755 });
    copyFileSync(from, `${real}.tmp`);
    chmodSync(`${real}.tmp`, mode);
    renameSync(`${real}.tmp`, real);
  }

  remove(p: string): void {
    this.out(`${this.opts.dryRun ? 'would remove' : 'remove'} ${p}`);
    if (!this.opts.dryRun) rmSync(this.path(p), { force: true });
  }

  /**
   * Runs a command (stdout returned) when live; else prints it as skipped and returns null.
   * @throws Error naming the command when it fails and `mayFail` is false
   */
  run(argv: string[], mayFail = false): string | null {
    const line = argv.join(' ');
    if (!this.live) {
      this.out(`skipped (${this.opts.dryRun ? '--dry-run' : '--root'}): ${line}`);
      return null;
    }
    this.out(`run ${line}`);
    try {
      return execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      if (mayFail) return null;
      const err = e as { stderr?: string; message: string };
      throw new Error(`${line} failed: ${(err.stderr || err.message).trim().split('\n')[0]}`);
    }
  }

  /** Prints a line. */
  say(line: string): void {
    this.out(line);
  }
}
