// Loads playwright-core from the e2e tool folder (it is not a dependency of the extension) and types
// the small part of its API the harness uses, so `tsc -b` passes before the tools are installed.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { TOOLS_DIR } from './paths';

export interface Locator {
  click(options?: { button?: 'left' | 'right'; timeout?: number }): Promise<void>;
  hover(options?: { timeout?: number }): Promise<void>;
  count(): Promise<number>;
  first(): Locator;
  nth(index: number): Locator;
  filter(options: { hasText?: string | RegExp }): Locator;
  locator(selector: string): Locator;
  innerText(options?: { timeout?: number }): Promise<string>;
  allInnerTexts(): Promise<string[]>;
  getAttribute(name: string): Promise<string | null>;
  isVisible(): Promise<boolean>;
  waitFor(options?: { state?: 'attached' | 'detached' | 'visible' | 'hidden'; timeout?: number }): Promise<void>;
  screenshot(options: { path: string }): Promise<Buffer>;
  boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null>;
  /** Runs `fn(element, arg)` in the browser; the harness has no DOM types, so the element is `any`. */
  evaluate<R, A = undefined>(fn: (element: any, arg: A) => R, arg?: A): Promise<R>;
}

export interface Page {
  goto(url: string, options?: { timeout?: number }): Promise<unknown>;
  locator(selector: string): Locator;
  keyboard: {
    press(key: string): Promise<void>;
    type(text: string, options?: { delay?: number }): Promise<void>;
  };
  mouse: {
    move(x: number, y: number, options?: { steps?: number }): Promise<void>;
    down(): Promise<void>;
    up(): Promise<void>;
  };
  screenshot(options: { path: string; clip?: { x: number; y: number; width: number; height: number } }): Promise<Buffer>;
  on(event: 'console', listener: (message: { type(): string; text(): string }) => void): void;
}

export interface Browser {
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<Page>;
  close(): Promise<void>;
}

interface Chromium {
  launch(options: { executablePath: string; args: string[]; headless?: boolean }): Promise<Browser>;
}

/** Debian's Chromium with the flags ../shared/docs/vscode-e2e.md found to work on these machines. */
export async function launchChromium(): Promise<Browser> {
  const require = createRequire(join(TOOLS_DIR, 'package.json'));
  const { chromium } = require('playwright-core') as { chromium: Chromium };
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
