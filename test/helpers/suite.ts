/**
 * The per-store suite: `describeEachStore(title, (server, store) => ...)` runs a describe block
 * once per store of STORES, with one server started before its tests and stopped after them.
 */
import { after, before, describe } from "node:test";
import { startServer, type TestServer } from "./server.ts";
import { STORES, type StoreKind } from "./stores.ts";

/** Environment variables for a suite's server, or a function giving them when it starts. */
export type SuiteEnv = Record<string, string> | (() => Record<string, string>);

/**
 * A suite's server, usable from the describe body on: each member reads the server started in
 * the suite's before() hook (an error before then). `replace` swaps in a restarted process.
 */
export class SuiteServer implements TestServer {
  #current: TestServer | undefined;

  constructor(readonly kind: StoreKind) {}

  /** The running server; throws outside the suite's hooks and tests. */
  get current(): TestServer {
    if (!this.#current) throw new Error(`the ${this.kind} suite's server has not started`);
    return this.#current;
  }

  /** Makes `next` (a restart on the same store, say) the suite's server; after() stops it. */
  replace(next: TestServer): void {
    this.#current = next;
  }

  /** Whether the server was started (it is stopped after the suite only then). */
  get started(): boolean {
    return this.#current !== undefined;
  }

  get url() {
    return this.current.url;
  }
  get fixtures() {
    return this.current.fixtures;
  }
  get api() {
    return this.current.api;
  }
  get store() {
    return this.current.store;
  }
  output() {
    return this.current.output();
  }
  advanceClock(seconds: number) {
    return this.current.advanceClock(seconds);
  }
  stopProcess() {
    return this.current.stopProcess();
  }
  killProcess() {
    return this.current.killProcess();
  }
  stop() {
    return this.current.stop();
  }
}

/**
 * Registers, in the current describe block, a before() hook that starts a server on a fresh
 * store of `kind` (with `env`) and an after() hook that stops it, and returns that server.
 * Hooks registered earlier (a mail server the env names) run before the start; later ones after it.
 */
export function useServer(kind: StoreKind, env: SuiteEnv = {}): SuiteServer {
  const server = new SuiteServer(kind);
  before(async () => {
    server.replace(await startServer(kind, typeof env === "function" ? env() : env));
  });
  after(async () => {
    if (server.started) await server.stop();
  });
  return server;
}

/** Options of a per-store describe block: its timeout (ms), and for describeEachStore its server's env. */
export type SuiteOptions = { env?: SuiteEnv; timeout?: number };

/**
 * `describe(\`${title} [store]\`)` once per store of STORES; the body starts what it needs
 * (services first, then `useServer(store, () => env)`).
 */
export function forEachStore(title: string, body: (store: StoreKind) => void, options: { timeout?: number } = {}): void {
  for (const store of STORES) describe(`${title} [${store}]`, options, () => body(store));
}

type SuiteBody = (server: SuiteServer, store: StoreKind) => void;

/**
 * A describe block per store, each with its own server (started before the body's before()
 * hooks run, stopped before its after() hooks run); `options.env` sets the server's variables.
 */
export function describeEachStore(title: string, body: SuiteBody): void;
export function describeEachStore(title: string, options: SuiteOptions, body: SuiteBody): void;
export function describeEachStore(title: string, optionsOrBody: SuiteOptions | SuiteBody, maybeBody?: SuiteBody): void {
  const options = typeof optionsOrBody === "function" ? {} : optionsOrBody;
  const body = typeof optionsOrBody === "function" ? optionsOrBody : maybeBody;
  if (!body) throw new Error("describeEachStore needs a body");
  const { env, ...describeOptions } = options;
  forEachStore(title, (store) => body(useServer(store, env), store), describeOptions);
}
