// Debian's Chromium through playwright-core, launched one way for the browser tests and
// the WebMCP bridge.

import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM ?? '/usr/bin/chromium';

// Flags measured to work headless as root (TOOLCHAIN.md "Browser").
export const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

// Native WebMCP (`document.modelContext`). Playwright's `page.webmcp` needs it literally in
// the launch arguments.
export const WEBMCP_FLAG = '--enable-features=WebMCP';

/** Headless Chromium, with native WebMCP when `webmcp` is true. */
export function launchChromium({ webmcp }) {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: webmcp ? [...FLAGS, WEBMCP_FLAG] : FLAGS,
  });
}
