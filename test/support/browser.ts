import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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
  return watch(await ctx.newPage(), problems);
}

/** `tab`, its console errors and page errors now appended to `problems`. */
function watch(tab: Page, problems: string[]): Page {
  tab.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${tab.url()}: ${m.text()}`);
  });
  tab.on('pageerror', (e) => problems.push(e.message));
  return tab;
}

/** A new watched tab (see watchedTab) of `ctx`, at `url`. */
export async function openWatched(ctx: BrowserContext, url: string, problems: string[]): Promise<Page> {
  const tab = watch(await ctx.newPage(), problems);
  await tab.goto(url);
  return tab;
}

/**
 * A context signed in to the console at `baseUrl` (the sign-in tab is closed again). Its pages count
 * the live stream's `hello` messages in `window.liveHellos` (sent once the stream is registered with
 * the live hub), so a test changes nothing before a page listens: see openLive.
 */
export async function signedInContext(browser: Browser, baseUrl: string, email: string, password: string, problems: string[], options: ContextOptions = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext({ colorScheme: 'light', ...options });
  await ctx.addInitScript(`
    window.liveHellos = 0;
    window.EventSource = class extends window.EventSource {
      constructor(url, init) {
        super(url, init);
        this.addEventListener('hello', () => window.liveHellos++);
      }
    };
  `);
  const tab = await openWatched(ctx, `${baseUrl}/login`, problems);
  await tab.fill('input[name=email]', email);
  await tab.fill('input[name=password]', password);
  await tab.click('button[type=submit]');
  await tab.waitForURL(`${baseUrl}/`);
  await tab.close();
  return ctx;
}

/** A watched page at `url` listening to the live stream, marked (`window.marker = 42`) so a reload would show. */
export async function openLive(ctx: BrowserContext, url: string, problems: string[]): Promise<Page> {
  const tab = await openWatched(ctx, url, problems);
  // A function, not a string: a string predicate polled in the page is eval'd, which the console's CSP refuses.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await tab.waitForFunction(() => (globalThis as any).liveHellos > 0 && (globalThis as any).htmx !== undefined);
  await tab.evaluate('window.marker = 42');
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

/**
 * A new error-watching tab ({@link watchedTab}) signed in to the console at `baseUrl` ({@link signInTab}).
 * @param options the context's options (viewport, JavaScript on or off)
 */
export async function signedInTab(browser: Browser, baseUrl: string, email: string, password: string, problems: string[], options: ContextOptions = {}): Promise<Page> {
  const tab = await watchedTab(browser, problems, options);
  await signInTab(tab, baseUrl, email, password);
  return tab;
}
