/**
 * A headless Chromium for the browser suites: Debian's `chromium` package driven by
 * playwright-core. A missing browser fails the suite (CI installs it, see .ci/run); it never skips.
 */
import fs from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import type { TestUser } from "./fixtures.ts";

/** The browser binary (CHROMIUM_PATH overrides Debian's path). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Launches the browser, or throws saying how to install it. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`browser tests need Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  // Chromium's sandbox refuses to start as root (CI runs as root).
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args });
}

/** Browser-side failures collected for a test's failure message. */
export type PageErrors = string[];

/**
 * A new signed-out browser profile (its own cookies) that may reach only `baseUrl`: any other
 * request is aborted, so no test talks to the outside. Page errors are collected.
 */
export async function openPage(browser: Browser, baseUrl: string, errors: PageErrors, viewport = { width: 1280, height: 800 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, colorScheme: "light", locale: "en-US", timezoneId: "UTC" });
  await context.route("**/*", (route) => (route.request().url().startsWith(baseUrl) ? route.continue() : route.abort()));
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  return { context, page };
}

/**
 * Signs a user in through the login form at `baseUrl` and waits for the app's compose box. The
 * page opens at the combined feed (`#feed`), which the suites read; an empty hash would open the
 * user's home view, the Inbox (inbox.test.ts).
 */
export async function signIn(page: Page, baseUrl: string, user: Pick<TestUser, "email" | "password">): Promise<void> {
  await page.goto(`${baseUrl}/#feed`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("textbox", { name: "Message" }).waitFor();
}
