// Headless Chromium for the web UI tests: Debian's chromium package driven by playwright-core
// (no browser download). Installs the package with apt-get when it is missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { runAdmin } from '../../daemon/src/admin-registry.js';
import type { TestDaemon } from './daemon.js';

export const CHROMIUM = process.env.DOCSIFT_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts', 'screenshots');

let installed = false;

/** Makes sure the Chromium binary exists, installing Debian's package once if needed. */
export function ensureChromium(): string {
  if (installed || existsSync(CHROMIUM)) {
    installed = true;
    return CHROMIUM;
  }
  // Test files run in parallel: one installs under a lock while the others wait, then find it there.
  // DPkg::Lock::Timeout waits for any other apt/dpkg run instead of failing at once.
  const apt = 'apt-get -y -q -o DPkg::Lock::Timeout=300';
  const script = `test -x "$1" || ${apt} install chromium || { ${apt} update && ${apt} install chromium; }`;
  try {
    execFileSync('flock', ['/tmp/docsift-chromium-install.lock', 'sh', '-c', script, 'sh', CHROMIUM], {
      stdio: 'pipe',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 15 * 60_000,
    });
  } catch (err) {
    const detail = (err as { stderr?: Buffer }).stderr?.toString().slice(-800) ?? (err as Error).message;
    throw new Error(
      `The web UI tests need Chromium at ${CHROMIUM}, and "apt-get install chromium" failed (root and Debian package access are required).\n` +
        `Install it by hand (apt-get install chromium) or point DOCSIFT_CHROMIUM at a Chromium binary.\n${detail}`,
    );
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} does not exist; set DOCSIFT_CHROMIUM.`);
  installed = true;
  return CHROMIUM;
}

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (own cookies) with one page. */
  newPage(opts?: {
    colorScheme?: 'light' | 'dark';
    viewport?: { width: number; height: number };
  }): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

/** Launches headless Chromium with a throwaway profile and no background network chatter. */
export async function launchBrowser(): Promise<TestBrowser> {
  const executablePath = ensureChromium();
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    timeout: 60_000,
    args: [
      '--headless',
      '--no-sandbox', // tests run as root, where Chromium's sandbox cannot start
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      // No --user-data-dir: Playwright refuses it for launch() and always starts Chromium on a
      // fresh temporary profile of its own, deleted on close.
    ],
  });
  return {
    browser,
    async newPage(opts = {}) {
      const context = await browser.newContext({
        viewport: opts.viewport ?? { width: 1360, height: 900 },
        colorScheme: opts.colorScheme ?? 'light',
      });
      context.setDefaultTimeout(15_000);
      return { context, page: await context.newPage() };
    },
    async close() {
      await browser.close().catch(() => {});
    },
  };
}

/**
 * The layout check: the page scrolls vertically only. Its scroll width must equal the viewport's
 * width (wide tables scroll inside their own box or become cards; nothing pushes the page wider).
 * Names the widest offending elements when it fails.
 */
export async function assertFits(page: Page, label = page.url()): Promise<void> {
  const r = await page.evaluate(() => {
    const vw = window.innerWidth;
    const doc = document.documentElement.scrollWidth;
    const culprits = Array.from(document.querySelectorAll('body *'))
      // Inside a scrolling box only what escapes its clipping counts (absolutely positioned without a positioned ancestor).
      .filter(
        (e) => e.getBoundingClientRect().right > vw + 0.5 && (!e.closest('.table-wrap') || getComputedStyle(e).position === 'absolute'),
      )
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${Array.from(e.classList).join('.')} (right ${Math.round(e.getBoundingClientRect().right)})`);
    return { vw, doc, culprits };
  });
  assert.equal(
    r.doc,
    r.vw,
    `${label}: page is ${r.doc} px wide in a ${r.vw} px viewport; overflowing: ${r.culprits.join(', ') || 'none found'}`,
  );
}

/** Full-page screenshot under test/artifacts/screenshots/<name>.png, after the layout check; returns the path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await assertFits(page, name);
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  // Chromium's Page.captureScreenshot now and then answers "Unable to capture screenshot" when
  // the compositor has no frame ready (seen on a loaded CI machine). The screenshot is an
  // artifact, not the assertion (assertFits above is), so capture is retried after a frame.
  for (let attempt = 1; ; attempt++) {
    try {
      await page.screenshot({ path: file, fullPage: true });
      return file;
    } catch (err) {
      if (attempt >= 3 || !/Unable to capture screenshot/.test((err as Error).message)) throw err;
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
  }
}

/** The sizes every page must fit: a desktop and a phone. */
export const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const;
export const COLOR_SCHEMES = ['light', 'dark'] as const;

/**
 * For each viewport and color scheme in turn: a fresh context signed in as `email`, `visit` on its page,
 * then the check that the page logged no console error and threw no uncaught error meanwhile.
 */
export async function inEveryViewport(
  b: TestBrowser,
  account: { baseUrl: string; email: string; password: string },
  visit: (page: Page, v: { width: number; colorScheme: 'light' | 'dark' }) => Promise<void>,
): Promise<void> {
  for (const viewport of VIEWPORTS)
    for (const colorScheme of COLOR_SCHEMES) {
      const v = await b.newPage({ viewport, colorScheme });
      const errors: string[] = [];
      v.page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      v.page.on('pageerror', (e) => errors.push(e.message));
      try {
        await signIn(v.page, account.baseUrl, account.email, account.password);
        await visit(v.page, { width: viewport.width, colorScheme });
      } finally {
        await v.context.close();
      }
      assert.deepEqual(errors, [], `${viewport.width} ${colorScheme}`);
    }
}

/** Signs in through the form; resolves once the landing page (or `next`) has loaded. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/app/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith('/app/sign-in')),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** Runs `docsift-daemon admin …` in-process against the test daemon's database; returns exit code and output. */
export async function admin(d: TestDaemon, argv: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) => new Writable({ write: (chunk, _enc, cb) => (add(String(chunk)), cb()) });
  const code = await runAdmin(
    {
      sql: d.deps.sql,
      config: { ...d.config, PUBLIC_URL: d.config.PUBLIC_URL ?? d.url },
      clock: d.deps.clock,
      out: sink((s) => (out += s)),
      err: sink((s) => (err += s)),
      in: Readable.from([stdin ?? '']),
    },
    argv,
  );
  return { code, out, err };
}
