import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../platform/project-root.js';

/** Debian's chromium package (`apt-get install chromium`); CHROMIUM_PATH points elsewhere. */
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, no sandbox (CI runs as root), and nothing that reaches the network on its own. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: EXECUTABLE, headless: true, args: CHROMIUM_FLAGS });
}

export interface Watched {
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  /** Requests the page tried to send anywhere but the service (each was aborted). */
  external: string[];
}

/** Records what a page complains about, and refuses every request that would leave `origin`. */
export async function watch(page: Page, origin: string): Promise<Watched> {
  const watched: Watched = { errors: [], external: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(`${error.name}: ${error.message}`));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    watched.external.push(url);
    return route.abort();
  });
  return watched;
}

/**
 * Where screenshots go: `docs/screenshots/` when UPDATE_SCREENSHOTS=1 (to
 * refresh the committed ones), else a scratch folder under os.tmpdir().
 */
export function screenshotPath(name: string, scratch: string): string {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? join(projectRoot(), 'docs', 'screenshots') : scratch;
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
