/**
 * The web app's weight and first load: a cold esbuild bundle of web/ (its time and the sizes
 * of what a first visit downloads: index.html, script and style sheet, raw, gzip and brotli),
 * then Chromium loading the app from a real server with an empty cache: the login page, and the
 * signed-in feed showing its newest 100 messages. Each load is timed WEBAPP_LOADS times; the
 * median is reported. Also the bytes a full POST /register puts on the wire, plain and as the
 * server compresses it for gzip and brotli clients (http/compression.ts). Takes a few seconds.
 */
import http from "node:http";
import zlib from "node:zlib";
import type { Browser, Cookie, Page } from "playwright-core";
import { bundleWebApp } from "../src/http/web-bundle.ts";
import { launchBrowser } from "../test/helpers/browser.ts";
import { basicAuth } from "../test/helpers/client.ts";
import { createFixtures, type TestUser } from "../test/helpers/fixtures.ts";
import { freshStore, type StoreKind } from "../test/helpers/stores.ts";
import { startParley } from "./servers.ts";
import { isQuick } from "./settings.ts";
import { takeTurn } from "./turns.ts";

/** Loads timed per page (the median is reported); three in the quick look. */
export const WEBAPP_LOADS = isQuick() ? 3 : 5;
/** Messages in the channel the signed-in load shows (one page of the feed). */
const FEED_MESSAGES = 100;
/** Issue 14's budget for the compressed script (and style sheet) of a first visit. */
export const FIRST_LOAD_BUDGET_BYTES = 150 * 1024;

/** What a first visit downloads, in bytes. */
export type Weight = { raw: number; gzip: number; brotli: number };

export type WebAppResult = {
  store: StoreKind;
  buildMs: number;
  /** index.html, the script and the style sheet (source maps are fetched only by developer tools). */
  firstLoad: Weight;
  script: Weight;
  /** Median ms from navigation to the login form. */
  loginPageMs: number;
  /** Median ms from navigation to the signed-in feed with its messages, or why not measured. */
  signedInMs: number | string;
  /** A full POST /register's answer as sent: without Accept-Encoding, to a gzip client, to a brotli client. */
  register: Weight;
};

/** The bytes of a full POST /register's answer as they cross the wire for one Accept-Encoding. */
function registerBytes(url: string, user: TestUser, acceptEncoding: string | null): Promise<number> {
  const headers: Record<string, string> = { authorization: basicAuth(user) };
  if (acceptEncoding) headers["accept-encoding"] = acceptEncoding;
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/v1/register`, { method: "POST", headers }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`POST /register: ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

function weigh(files: readonly Buffer[]): Weight {
  const sum = (f: (b: Buffer) => number) => files.reduce((n, b) => n + f(b), 0);
  return {
    raw: sum((b) => b.length),
    gzip: sum((b) => zlib.gzipSync(b, { level: 9 }).length),
    brotli: sum((b) => zlib.brotliCompressSync(b).length),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Times WEBAPP_LOADS cold loads (a fresh profile each) until `ready` resolves. */
async function timeLoads(browser: Browser, url: string, cookies: Cookie[], ready: (page: Page) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WEBAPP_LOADS; i++) {
    const context = await browser.newContext();
    await context.addCookies(cookies);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url);
    await ready(page);
    times.push(performance.now() - started);
    await context.close();
  }
  return median(times);
}

async function seedFeed(url: string, owner: TestUser): Promise<void> {
  const post = async (path: string, params: Record<string, string>) => {
    const res = await fetch(`${url}/api/v1${path}`, { method: "POST", headers: { authorization: basicAuth(owner) }, body: new URLSearchParams(params) });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  };
  await post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "bench" }]) });
  for (let i = 0; i < FEED_MESSAGES; i++) {
    await post("/messages", { type: "stream", to: "bench", topic: `topic ${i % 7}`, content: `Message **${i}** with \`code\`, a [link](https://example.com) and some words.` });
  }
}

/** Signs in through the login form; the session cookies, or why it failed. */
async function signIn(browser: Browser, url: string, user: TestUser): Promise<Cookie[] | string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // The combined feed, not the home view (the Inbox), so that the message list shows.
    await page.goto(`${url}/#feed`);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    const outcome = await Promise.race([
      page.getByRole("log", { name: "Messages" }).waitFor({ timeout: 10_000 }).then(() => "ok"),
      page.getByRole("alert").waitFor({ timeout: 10_000 }).then(async () => `login failed: ${await page.getByRole("alert").innerText()}`),
    ]);
    return outcome === "ok" ? await context.cookies() : outcome;
  } catch (err) {
    return `login failed: ${String(err).split("\n")[0]}`;
  } finally {
    await context.close();
  }
}

/**
 * Starts a server on `kind` and Chromium, seeds the feed, then builds and weighs the bundle and
 * times first loads against the server. The build is timed in the run's turn: in turns.ts's
 * runs, only then does nothing else work on the machine.
 */
export async function runWebAppScenario(kind: StoreKind): Promise<WebAppResult> {
  const store = await freshStore(kind);
  const fixtures = await createFixtures(store);
  const server = await startParley({ dataDir: store.dataDir, databaseUrl: store.databaseUrl, setUpThrough: true });
  let browser: Browser | null = null;
  try {
    // Inside the try: without Chromium the server must still stop, or the harness never exits.
    browser = await launchBrowser();
    await seedFeed(server.url, fixtures.owner);
    // The server loads esbuild only for a build; its loading is not the build's time.
    await import("esbuild");
    await takeTurn();
    const started = performance.now();
    const files = await bundleWebApp();
    const buildMs = performance.now() - started;
    const firstLoad = weigh([...files].filter(([name]) => name === "index.html" || name.endsWith(".js") || name.endsWith(".css")).map(([, b]) => b));
    const script = weigh([...files].filter(([name]) => name.endsWith(".js")).map(([, b]) => b));
    const loginPageMs = await timeLoads(browser, server.url, [], (page) => page.getByLabel("Email").waitFor());
    const cookies = await signIn(browser, server.url, fixtures.owner);
    const feedShown = (page: Page) => page.getByRole("log", { name: "Messages" }).getByRole("article").nth(FEED_MESSAGES - 1).waitFor();
    const signedInMs = typeof cookies === "string" ? cookies : await timeLoads(browser, `${server.url}/#feed`, cookies, feedShown);
    const register = { raw: await registerBytes(server.url, fixtures.owner, null), gzip: await registerBytes(server.url, fixtures.owner, "gzip"), brotli: await registerBytes(server.url, fixtures.owner, "br") };
    return { store: kind, buildMs, firstLoad, script, loginPageMs, signedInMs, register };
  } finally {
    await browser?.close();
    await server.stop();
    await store.drop();
  }
}
