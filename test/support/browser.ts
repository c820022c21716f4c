import { chromium, type Browser, type Page } from 'playwright-core';

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

/** The two screens every console browser test covers: desktop 1366×900 and a 390×844 phone. */
export const VIEWPORTS = [
  { name: 'desktop', options: { viewport: { width: 1366, height: 900 } } },
  { name: '390 px phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
] as const;

/** Options of `browser.newContext` (viewport, javaScriptEnabled, colorScheme, …). */
export type ContextOptions = Parameters<Browser['newContext']>[0];

/**
 * A new tab in a new context (light scheme unless `options` say otherwise) whose console errors and
 * page errors are appended to `problems` (a test asserts it stays empty: no CSP violation, no
 * script error).
 */
export async function watchedTab(browser: Browser, problems: string[], options: ContextOptions = {}): Promise<Page> {
  const ctx = await browser.newContext({ colorScheme: 'light', ...options });
  const tab = await ctx.newPage();
  tab.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${tab.url()}: ${m.text()}`);
  });
  tab.on('pageerror', (e) => problems.push(e.message));
  return tab;
}

/** Signs `tab` in to the console at `baseUrl` with the sign-in form and waits for the overview. */
export async function signInTab(tab: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await tab.goto(`${baseUrl}/login`);
  await tab.fill('input[name=email]', email);
  await tab.fill('input[name=password]', password);
  await tab.click('button[type=submit]');
  await tab.waitForURL(`${baseUrl}/`);
}
