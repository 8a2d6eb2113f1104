/**
 * Headless Chromium for the page tests: Debian's /usr/bin/chromium driven by puppeteer-core (no
 * browser download). `browserSkipReason()` says why the tests cannot run here (they then skip,
 * loudly).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';

export const CHROMIUM = process.env.VOICEWIRE_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

export function browserSkipReason(): string | null {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
  try {
    createRequire(import.meta.url).resolve('puppeteer-core');
  } catch {
    return 'puppeteer-core is not installed (a devDependency)';
  }
  return null;
}

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  const { launch } = await import('puppeteer-core');
  const profile = mkdtempSync(join(tmpdir(), 'vw-chromium-'));
  const browser = await launch({ executablePath: CHROMIUM, headless: true, args: [...FLAGS, `--user-data-dir=${profile}`] });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
