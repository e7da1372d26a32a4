/**
 * A browser suite's scaffolding: `useBrowserSuite(env)` registers, in the current describe block,
 * a before() hook that starts a server on a fresh SQLite store and Chromium side by side, and an
 * after() hook that closes the browser, stops the server and fails the suite if any page reported
 * an error. The suite's own before() hooks, registered after the call, run once both are up.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, openPage, signIn, type PageErrors } from "./browser.ts";
import type { TestUser } from "./fixtures.ts";
import { startServer } from "./server.ts";
import { SuiteServer, type SuiteEnv } from "./suite.ts";

/** A browser profile of its own (cookies, storage) and its first page. */
export type Opened = { context: BrowserContext; page: Page };

export type BrowserSuite = {
  server: SuiteServer;
  /** What the suite's pages reported (page errors): checked empty after the suite. */
  errors: PageErrors;
  readonly browser: Browser;
  /** A new signed-out profile that may reach only the suite's server. */
  open(viewport?: { width: number; height: number }): Promise<Opened>;
  /** A new profile signed in as `user` through the login form (the compose box shown). */
  signedIn(user: Pick<TestUser, "email" | "password">, viewport?: { width: number; height: number }): Promise<Opened>;
};

export function useBrowserSuite(env: SuiteEnv = {}): BrowserSuite {
  const server = new SuiteServer("sqlite");
  const errors: PageErrors = [];
  let browser: Browser | undefined;
  const running = (): Browser => {
    if (!browser) throw new Error("the suite's browser has not started");
    return browser;
  };
  before(async () => {
    const [started, launched] = await Promise.all([startServer("sqlite", typeof env === "function" ? env() : env), launchBrowser()]);
    server.replace(started);
    browser = launched;
  });
  after(async () => {
    await browser?.close();
    if (server.started) await server.stop();
    assert.deepEqual(errors, [], "the pages reported errors");
  });
  const open = (viewport?: { width: number; height: number }) => openPage(running(), server.url, errors, viewport);
  return {
    server,
    errors,
    get browser() {
      return running();
    },
    open,
    async signedIn(user, viewport) {
      const opened = await open(viewport);
      await signIn(opened.page, server.url, user);
      return opened;
    },
  };
}
