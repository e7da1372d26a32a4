/** The admin CLI (`npx parley ...`) on a real store, with a running server proving what it wrote. */
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { migrate, openStore } from "../../src/store/db.ts";
import { createFixtures } from "../helpers/fixtures.ts";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { runCli, startServerOnStore, type CliResult, type TestServer } from "../helpers/server.ts";
import { freshStore, STORES } from "../helpers/stores.ts";
import { WRONG_LOGIN } from "../helpers/errors.ts";

// Bots get `<short-name>-bot@<host of EXTERNAL_URL>` addresses.
const CLI_ENV = { EXTERNAL_URL: "http://chat.example.test" };
const KEY_SHAPE = /^[A-Za-z0-9]{32}$/;

type Printed = { user_id: number; email: string; api_key: string };

function parseOutput(res: CliResult): Printed {
  assert.equal(res.code, 0, `CLI failed: ${res.stderr}`);
  const lines = res.stdout.trim().split("\n");
  assert.equal(lines.length, 1, `one JSON object expected, got: ${res.stdout}`);
  return JSON.parse(lines[0]) as Printed;
}

function expectCliError(res: CliResult, exitCode: number, message: string): void {
  assert.deepEqual({ code: res.code, stdout: res.stdout }, { code: exitCode, stdout: "" }, `stderr: ${res.stderr}`);
  assert.ok(res.stderr.includes(message), `stderr should include ${JSON.stringify(message)}: ${res.stderr}`);
}

for (const kind of STORES) {
  describe(`admin CLI [${kind}]`, () => {
    let server: TestServer;
    const cli = (args: string[], stdin?: string) => runCli(server.store, args, { stdin, env: CLI_ENV });
    /** GET /users/me as these credentials: the proof that a printed key authenticates. */
    const me = (creds: Credentials) => server.api.get(creds, "/users/me");
    const login = (username: string, password: string) => server.api.post(null, "/fetch_api_key", { username, password });

    before(async () => {
      const store = await freshStore(kind);
      server = await startServerOnStore(store, await createFixtures(store));
    });
    after(async () => {
      await server?.stop();
    });

    test("create-user prints user_id, email and api_key, and the key authenticates", async () => {
      const out = parseOutput(await cli(["create-user", "--email", "carol@example.com", "--full-name", "Carol Cli", "--password", "carols-secret"]));
      assert.deepEqual(Object.keys(out).sort(), ["api_key", "email", "user_id"]);
      assert.equal(out.email, "carol@example.com");
      assert.match(out.api_key, KEY_SHAPE);
      const body = expectSuccess(await me({ email: out.email, apiKey: out.api_key }));
      assert.equal(body.user_id, out.user_id);
      assert.equal(body.full_name, "Carol Cli");
      assert.equal(body.role, 400);
      assert.equal(body.is_bot, false);
      const key = expectSuccess(await login("carol@example.com", "carols-secret"));
      assert.deepEqual({ api_key: key.api_key, user_id: key.user_id }, { api_key: out.api_key, user_id: out.user_id });
    });

    test("create-user: the new person gets the Welcome Bot's introduction and the organization's note, as upstream's create_user", async () => {
      expectSuccess(await server.api.patch(server.fixtures.admin, "/realm", { welcome_message_custom_text: "From the command line." }));
      const out = parseOutput(await cli(["create-user", "--email", "wes@example.com", "--full-name", "Wes Welcomed", "--password", "wes-secret-1"]));
      // The bot's address follows the CLI's EXTERNAL_URL here (welcome-bot@chat.example.test): its direct messages are the person's only ones.
      const body = expectSuccess(await server.api.get({ email: out.email, apiKey: out.api_key }, "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "is", operand: "dm" }], apply_markdown: false }));
      const messages = body.messages as Array<{ content: string; flags: string[]; sender_full_name: string }>;
      assert.deepEqual(messages.map((m) => [m.sender_full_name, m.flags]), [["Welcome Bot", ["starred"]], ["Welcome Bot", ["starred"]]]);
      assert.match(messages[0].content, /^Hi Wes Welcomed, welcome to Test Org!/);
      assert.match(messages[1].content, /From the command line\./);
      expectSuccess(await server.api.patch(server.fixtures.admin, "/realm", { welcome_message_custom_text: "" }));
    });

    test("create-user --role sets the role; without --password there is no password login", async () => {
      const out = parseOutput(await cli(["create-user", "--email", "dana@example.com", "--full-name", "Dana", "--role", "admin"]));
      assert.equal(expectSuccess(await me({ email: out.email, apiKey: out.api_key })).role, 200);
      expectError(await login("dana@example.com", ""), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      for (const [role, value] of [["owner", 100], ["moderator", 300], ["guest", 600]] as const) {
        const u = parseOutput(await cli(["create-user", "--email", `${role}2@example.com`, "--full-name", role, "--role", role]));
        assert.equal(expectSuccess(await me({ email: u.email, apiKey: u.api_key })).role, value);
      }
    });

    test("create-user refuses a duplicate email (any case) and writes nothing", async () => {
      const res = await cli(["create-user", "--email", "Member@Example.com", "--full-name", "Copy"]);
      expectCliError(res, 1, "Email 'Member@Example.com' already in use");
      assert.equal((await cli(["api-key", "--email", "member@example.com"])).stdout.trim(), server.fixtures.member.apiKey);
    });

    test("create-user: bad arguments are usage errors (exit 2) and write nothing", async () => {
      const cases: [string[], string][] = [
        [["create-user", "--email", "e1@example.com"], "missing required option --full-name"],
        [["create-user", "--full-name", "No Email"], "missing required option --email"],
        [["create-user", "--email", "e1@example.com", "--full-name", "E", "--role", "king"], "--role must be one of owner, admin, moderator, member, guest (got 'king')"],
        [["create-user", "--email", "not-an-email", "--full-name", "E"], "'not-an-email' is not a valid email address"],
        [["create-user", "--email", "e1@example.com", "--full-name", "   "], "--full-name must not be empty"],
        [["create-user", "--email", "e1@example.com", "--full-name", "x".repeat(101)], "--full-name is too long (limit: 100 characters)"],
        [["create-user", "--email", "e1@example.com", "--full-name", "E", "--colour", "red"], "Unknown option '--colour'"],
        [["create-user", "--email", "e1@example.com", "--full-name", "E", "extra"], "Unexpected argument 'extra'"],
        [["create-user", "--email"], "Option '--email <value>' argument missing"],
      ];
      const results = await Promise.all(cases.map(([args]) => cli(args)));
      cases.forEach(([, message], i) => expectCliError(results[i], 2, message));
      expectCliError(await cli(["api-key", "--email", "e1@example.com"]), 1, "no user with email 'e1@example.com'");
    });

    test("unknown commands and unknown users fail clearly", async () => {
      expectCliError(await cli(["make-coffee"]), 2, "unknown command 'make-coffee'");
      expectCliError(await cli(["serve", "--port", "1"]), 2, "serve takes no options");
      expectCliError(await cli(["api-key", "--email", "nobody@example.com"]), 1, "parley api-key: no user with email 'nobody@example.com' in organization 'Test Org'");
      const help = await cli(["help"]);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /create-bot --owner OWNER --full-name FULL_NAME --short-name SHORT_NAME/);
    });

    test("create-bot makes <short-name>-bot@<host> owned by the owner; its key authenticates", async () => {
      const out = parseOutput(await cli(["create-bot", "--owner", "moderator@example.com", "--full-name", "Deploy Bot", "--short-name", "deploy"]));
      assert.equal(out.email, "deploy-bot@chat.example.test");
      assert.match(out.api_key, KEY_SHAPE);
      const body = expectSuccess(await me({ email: out.email, apiKey: out.api_key }));
      assert.deepEqual({ user_id: body.user_id, is_bot: body.is_bot, full_name: body.full_name }, { user_id: out.user_id, is_bot: true, full_name: "Deploy Bot" });
      const row = await readUser(out.user_id);
      assert.deepEqual({ bot_type: row.bot_type, bot_owner_id: row.bot_owner_id, role: row.role }, { bot_type: 1, bot_owner_id: server.fixtures.moderator.id, role: 400 });
      expectCliError(await cli(["create-bot", "--owner", "moderator@example.com", "--full-name", "Again", "--short-name", "deploy"]), 1, "Username already in use: 'deploy-bot@chat.example.test'");
      // A port in EXTERNAL_URL stays out of the address: Basic auth splits `email:key` at a colon.
      const ported = await runCli(server.store, ["create-bot", "--owner", "moderator@example.com", "--full-name", "Ported", "--short-name", "ported"], { env: { EXTERNAL_URL: "http://chat.example.test:8443" } });
      assert.equal(parseOutput(ported).email, "ported-bot@chat.example.test");
    });

    test("create-bot --type outgoing stores the service URL and a token; incoming has no service", async () => {
      const out = parseOutput(await cli(["create-bot", "--owner", "admin@example.com", "--full-name", "Hook", "--short-name", "hook", "--type", "outgoing", "--service-url", "https://bots.example.test/hook"]));
      const services = await readServices(out.user_id);
      assert.equal(services.length, 1);
      assert.equal(services[0].base_url, "https://bots.example.test/hook");
      assert.match(services[0].token, KEY_SHAPE);
      assert.equal((await readUser(out.user_id)).bot_type, 3);
      const incoming = parseOutput(await cli(["create-bot", "--owner", "admin@example.com", "--full-name", "In", "--short-name", "in", "--type", "incoming"]));
      assert.equal((await readUser(incoming.user_id)).bot_type, 2);
      assert.deepEqual(await readServices(incoming.user_id), []);
    });

    test("create-bot: bad arguments and owners are refused, nothing written", async () => {
      const base = ["create-bot", "--full-name", "B", "--short-name", "nope"];
      const cases: [string[], number, string][] = [
        [[...base, "--owner", "ghost@example.com"], 1, "no user with email 'ghost@example.com'"],
        [[...base, "--owner", "helper-bot@example.com"], 1, "a bot cannot own another bot"],
        [[...base, "--owner", "admin@example.com", "--type", "outgoing"], 2, "outgoing bots need --service-url"],
        [[...base, "--owner", "admin@example.com", "--type", "outgoing", "--service-url", "ftp://x"], 2, "--service-url must be an http or https URL"],
        [[...base, "--owner", "admin@example.com", "--type", "outgoing", "--service-url", "nope"], 2, "--service-url 'nope' is not a URL"],
        [[...base, "--owner", "admin@example.com", "--service-url", "https://x.test"], 2, "--service-url is only for --type outgoing"],
        [[...base, "--owner", "admin@example.com", "--type", "embedded"], 2, "--type must be one of generic, incoming, outgoing"],
        [["create-bot", "--owner", "admin@example.com", "--full-name", "B", "--short-name", "two words"], 2, "--short-name may contain only"],
        [["create-bot", "--owner", "admin@example.com", "--full-name", "B"], 2, "missing required option --short-name"],
      ];
      const results = await Promise.all(cases.map(([args]) => cli(args)));
      cases.forEach(([, code, message], i) => expectCliError(results[i], code, message));
      expectCliError(await cli(["api-key", "--email", "nope-bot@chat.example.test"]), 1, "no user with email");
    });

    test("api-key prints the key; regenerate-api-key replaces it and the old one stops working", async () => {
      const { guest } = server.fixtures;
      const printed = await cli(["api-key", "--email", guest.email]);
      assert.deepEqual({ code: printed.code, stdout: printed.stdout }, { code: 0, stdout: `${guest.apiKey}\n` });
      const res = await cli(["regenerate-api-key", "--email", guest.email]);
      assert.equal(res.code, 0, res.stderr);
      const fresh = res.stdout.trim();
      assert.match(fresh, KEY_SHAPE);
      assert.notEqual(fresh, guest.apiKey);
      expectError(await me(guest), "UNAUTHORIZED", "Invalid API key", 401);
      expectSuccess(await me({ email: guest.email, apiKey: fresh }));
      assert.equal((await cli(["api-key", "--email", guest.email])).stdout.trim(), fresh);
    });

    test("set-password reads one line from stdin, never from argv", async () => {
      const { admin } = server.fixtures;
      expectCliError(await cli(["set-password", "--email", admin.email, "--password", "argv-secret"]), 2, "Unknown option '--password'");
      expectCliError(await cli(["set-password", "--email", admin.email], ""), 2, "the password read from stdin is empty");
      expectSuccess(await login(admin.email, admin.password));
      const res = await cli(["set-password", "--email", admin.email], "a new secret\nignored second line\n");
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout), { user_id: admin.id, email: admin.email });
      assert.ok(!res.stdout.includes("a new secret") && !res.stderr.includes("a new secret"));
      expectError(await login(admin.email, admin.password), "AUTHENTICATION_FAILED", WRONG_LOGIN, 401);
      expectSuccess(await login(admin.email, "a new secret"));
      expectCliError(await cli(["set-password", "--email", "helper-bot@example.com"], "pw\n"), 1, "bots log in with their API key and have no password");
    });

    test("deactivate-user deactivates the user and their bots; the last owner stays", async () => {
      const user = parseOutput(await cli(["create-user", "--email", "leaving@example.com", "--full-name", "Leaving"]));
      const bot = parseOutput(await cli(["create-bot", "--owner", "leaving@example.com", "--full-name", "Leaving Bot", "--short-name", "leaving"]));
      const res = await cli(["deactivate-user", "--email", "leaving@example.com"]);
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout), { user_id: user.user_id, email: "leaving@example.com", deactivated_user_ids: [user.user_id, bot.user_id] });
      expectError(await me({ email: user.email, apiKey: user.api_key }), "UNAUTHORIZED", "Account is deactivated", 401);
      expectError(await me({ email: bot.email, apiKey: bot.api_key }), "UNAUTHORIZED", "Account is deactivated", 401);
      expectCliError(await cli(["deactivate-user", "--email", "leaving@example.com"]), 1, "'leaving@example.com' is already deactivated");

      // owner2@example.com (made above) and the fixture owner: one may go, then the other must stay.
      parseOutput(await cli(["deactivate-user", "--email", "owner2@example.com"]));
      expectCliError(await cli(["deactivate-user", "--email", server.fixtures.owner.email]), 1, "Cannot deactivate the only organization owner.");
      expectSuccess(await me(server.fixtures.owner));
    });

    test("grant-email-change sets can_change_user_emails in the user's settings", async () => {
      const { owner, member } = server.fixtures;
      const res = await cli(["grant-email-change", "--email", owner.email]);
      assert.deepEqual({ code: res.code, out: JSON.parse(res.stdout), err: res.stderr }, { code: 0, out: { user_id: owner.id, email: owner.email, can_change_user_emails: true }, err: "" });
      assert.deepEqual(JSON.parse((await readUser(owner.id)).settings), { can_change_user_emails: true });
      const warned = await cli(["grant-email-change", "--email", member.email]);
      assert.equal(warned.code, 0);
      assert.match(warned.stderr, /is not an owner/);
    });

    test("grant-create-users and revoke-create-users set can_create_users; POST /users follows", async () => {
      const admin = parseOutput(await cli(["create-user", "--email", "creator@example.com", "--full-name", "Creator", "--role", "admin"]));
      const creds = { email: admin.email, apiKey: admin.api_key };
      const make = (n: number) => server.api.post(creds, "/users", { email: `made-by-cli${n}@example.com`, password: "made-password", full_name: `Made ${n}` });
      assert.equal(Number((await readUser(admin.user_id)).can_create_users), 0, "off for a new administrator, as for Zulip's");
      expectError(await make(1), "BAD_REQUEST", "User not authorized to create users");
      const granted = await cli(["grant-create-users", "--email", admin.email]);
      assert.deepEqual({ code: granted.code, out: JSON.parse(granted.stdout), err: granted.stderr }, { code: 0, out: { user_id: admin.user_id, email: admin.email, can_create_users: true }, err: "" });
      expectSuccess(await make(2));
      const revoked = await cli(["revoke-create-users", "--email", admin.email]);
      assert.deepEqual({ code: revoked.code, out: JSON.parse(revoked.stdout) }, { code: 0, out: { user_id: admin.user_id, email: admin.email, can_create_users: false } });
      assert.equal(Number((await readUser(admin.user_id)).can_create_users), 0);
      expectError(await make(3), "BAD_REQUEST", "User not authorized to create users");
      expectCliError(await cli(["grant-create-users"]), 2, "missing required option --email");
      expectCliError(await cli(["grant-create-users", "--email", "nobody@example.com"]), 1, "no user with email 'nobody@example.com'");
      const member = await cli(["grant-create-users", "--email", server.fixtures.member.email]);
      assert.equal(member.code, 0);
      assert.match(member.stderr, /is not an administrator/);
    });

    test("commands run side by side against a server under load all succeed (each write waits its turn)", async () => {
      // A steady stream of writes through the server while six create-user commands start at once.
      const { owner } = server.fixtures;
      expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "cli load" }] }));
      let loading = true;
      let sent = 0;
      const load = (async () => {
        while (loading) {
          const batch = Array.from({ length: 8 }, (_, i) =>
            server.api.post(owner, "/messages", { type: "stream", to: "cli load", topic: "load", content: `load ${sent + i}` }),
          );
          for (const res of await Promise.all(batch)) expectSuccess(res);
          sent += batch.length;
        }
      })();
      try {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) => cli(["create-user", "--email", `side-by-side${i}@example.com`, "--full-name", `Side ${i}`])),
        );
        const printed = results.map(parseOutput);
        assert.deepEqual(printed.map((p) => p.email), Array.from({ length: 6 }, (_, i) => `side-by-side${i}@example.com`));
        for (const p of printed) expectSuccess(await me({ email: p.email, apiKey: p.api_key }));
      } finally {
        loading = false;
        await load;
      }
      assert.ok(sent > 0, "the server was under load while the commands ran");
    });

    test("a store with no organization yet: a clear error", async () => {
      const empty = await freshStore(kind);
      try {
        const res = await runCli(empty, ["create-user", "--email", "x@example.com", "--full-name", "X"]);
        expectCliError(res, 1, "no organization exists yet: start the server once (npm start) to create it");
      } finally {
        await empty.drop();
      }
    });

    async function withStore<T>(fn: (db: ReturnType<typeof openStore>["db"]) => Promise<T>): Promise<T> {
      const s = openStore({ databaseUrl: server.store.databaseUrl, dataDir: server.store.dataDir });
      try {
        await migrate(s);
        return await fn(s.db);
      } finally {
        await s.close();
      }
    }
    function readUser(id: number) {
      return withStore((db) => db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirstOrThrow());
    }
    function readServices(botId: number) {
      return withStore((db) => db.selectFrom("services").selectAll().where("bot_user_id", "=", botId).execute());
    }
  });
}

describe("README", () => {
  test("documents every environment variable src/config.ts reads", () => {
    const config = fs.readFileSync(new URL("../../src/config.ts", import.meta.url), "utf8");
    const readme = fs.readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const names = new Set([...config.matchAll(/env\.([A-Z][A-Z0-9_]+)|intEnv\(env, "([A-Z][A-Z0-9_]+)"/g)].map((m) => m[1] ?? m[2]));
    assert.ok(names.size >= 10, `found ${[...names].join(", ")}`);
    assert.deepEqual([...names].filter((n) => !readme.includes(`| \`${n}\` |`)), []);
  });
});
