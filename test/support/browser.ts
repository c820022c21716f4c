import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). Override with PHAROS_CHROMIUM. */
export const CHROMIUM_PATH = process.env.PHAROS_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Launches headless Chromium through playwright-core (no browser download: it drives the system's
 * Chromium). `extraArgs` are added to the command line (e.g. `--host-resolver-rules=…` to reach
 * host-routed pages on loopback). The caller closes it.
 */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', ...extraArgs] });
}
