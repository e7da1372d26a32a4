/**
 * Outgoing webhooks reach only public addresses: a bot whose URL names a loopback, private,
 * link-local or metadata address, a name that resolves to one, or a server that redirects to one
 * is refused, and its owner is told so in Zulip's words, with nothing of the target's answer.
 * OUTGOING_HTTP_ALLOW lets an operator's own bot server through (here one port of 127.0.0.1, the
 * "gateway", playing a public host); the "internal" server on another port plays a service on the
 * server's machine that must stay out of reach. With OUTGOING_HTTP_PROXY every request goes
 * through the proxy (test/helpers/http-proxy.ts, playing Smokescreen), which then decides.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { expectSuccess } from "../helpers/client.ts";
import { HttpProxy, PROXY_REFUSAL_BODY } from "../helpers/http-proxy.ts";
import { BotHarness, BotServer, mention, ownerNotice, type Bot } from "../helpers/outgoing-bots.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { STORES } from "../helpers/stores.ts";
import { testCertificate } from "../helpers/tls-cert.ts";

/** Zulip's words to the owner when its proxy refuses the bot's URL (status 407). */
const REFUSED = "The URL configured for the webhook is for a private or disallowed network.";
/** What the internal service answers: none of it may reach anyone. */
const SECRET = "internal-secret-7f3a9c";

/** The bot servers, listening: the gateway over HTTP and over HTTPS (with a certificate the server is told to trust), the internal service. */
async function botServers(): Promise<{ gateway: BotServer; tlsGateway: BotServer; internal: BotServer; certFile: string }> {
  const certificate = testCertificate();
  const gateway = new BotServer();
  const tlsGateway = new BotServer(certificate);
  const internal = new BotServer();
  await Promise.all([gateway.listen(), tlsGateway.listen(), internal.listen()]);
  return { gateway, tlsGateway, internal, certFile: certificate.certFile };
}

/** Starts a server with `env` and the harness on it (its bots answer at `gateway` by default). */
async function startWith(store: (typeof STORES)[number], gateway: BotServer, certFile: string, env: Record<string, string>): Promise<{ server: TestServer; hooks: BotHarness }> {
  const settings = { OUTGOING_WEBHOOK_RETRY_BASE_MS: "20", OUTGOING_WEBHOOK_TIMEOUT_SECONDS: "1", NODE_EXTRA_CA_CERTS: certFile, ...env };
  const server = await startServer(store, settings);
  const hooks = new BotHarness(server, gateway);
  await hooks.start();
  return { server, hooks };
}

/** Sends a channel message mentioning `bots` in `topic`; returns its id. */
async function mentionIn(server: TestServer, topic: string, bots: Bot[]): Promise<number> {
  const content = `${bots.map(mention).join(" ")} hello`;
  return expectSuccess(await server.api.post(server.fixtures.member, "/messages", { type: "stream", to: "general", topic, content })).id;
}

/** Waits for the refusal's two messages: "Failure! ..." in the topic, and the exact notice to the owner. */
async function expectRefused(server: TestServer, hooks: BotHarness, bot: Bot, topic: string, messageId: number): Promise<void> {
  const generalId = expectSuccess(await server.api.get(server.fixtures.admin, "/get_stream_id", { stream: "general" })).stream_id;
  const notice = await hooks.waitForMessage(ownerNotice(bot));
  assert.equal(
    notice.content,
    `[A message](${server.url}/#narrow/channel/${generalId}-general/topic/${topic}/near/${messageId}) to your bot @_**${bot.fullName}** triggered an outgoing webhook.\n${REFUSED}`,
  );
  const failure = await hooks.waitForMessage((m) => m.sender_id === bot.id && m.subject === topic);
  assert.equal(failure.content, "Failure! Third party responded with 407");
}

/** No message the owner saw holds any of `text`. */
function assertNothingLeaked(hooks: BotHarness, text: string): void {
  for (const m of hooks.messagesSeen()) assert.ok(!String(m.content).includes(text), `leaked into: ${m.content}`);
}

for (const store of STORES) {
  describe(`outgoing webhooks refuse internal addresses [${store}]`, () => {
    let server: TestServer;
    let gateway: BotServer;
    let tlsGateway: BotServer;
    let internal: BotServer;
    let hooks: BotHarness;

    before(async () => {
      let certFile: string;
      ({ gateway, tlsGateway, internal, certFile } = await botServers());
      ({ server, hooks } = await startWith(store, gateway, certFile, { OUTGOING_HTTP_ALLOW: `127.0.0.1:${gateway.port}, 127.0.0.1:${tlsGateway.port}` }));
    });
    after(async () => {
      await server?.stop();
      await Promise.all([gateway?.close(), tlsGateway?.close(), internal?.close()]);
    });

    test("a bot at 127.0.0.1 is refused at once: the service gets no request and the owner none of its answer", async () => {
      internal.script("/loopback", [{ status: 200, body: SECRET }]);
      const bot = await hooks.createBot("Loopback Bot", `${internal.url}/loopback`);
      const id = await mentionIn(server, "loopback", [bot]);
      await expectRefused(server, hooks, bot, "loopback", id);
      await hooks.jobsDone();
      assert.equal(internal.requests("/loopback").length, 0);
      assertNothingLeaked(hooks, SECRET);
    });

    test("private, link-local, metadata, unspecified and IPv4-mapped addresses are refused before any connection", async () => {
      const urls = [
        "http://10.1.2.3:8080/hook",
        "http://192.168.1.1/",
        "http://172.16.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.100.100.200/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        `http://0.0.0.0:${internal.port}/unspecified`,
        `http://[::ffff:127.0.0.1]:${internal.port}/mapped`,
        `http://[::1]:${internal.port}/v6-loopback`,
      ];
      const bots: Bot[] = [];
      for (const [i, url] of urls.entries()) bots.push(await hooks.createBot(`Private Bot ${i}`, url));
      const id = await mentionIn(server, "private", bots);
      // A connection to 10.1.2.3 would time out (1 s) and be retried: refusal is the only way to this notice.
      for (const bot of bots) await expectRefused(server, hooks, bot, "private", id);
      await hooks.jobsDone();
      assert.deepEqual(internal.allRequests(), []);
    });

    test("a name that resolves to loopback is refused, over HTTP or HTTPS", async () => {
      internal.script("/named", [{ status: 500, body: SECRET }]);
      const bot = await hooks.createBot("Named Bot", `http://localhost:${internal.port}/named`);
      // Were it connected to, this plain-HTTP port would fail the TLS handshake: a connection error, not a refusal.
      const tlsBot = await hooks.createBot("Named TLS Bot", `https://localhost:${internal.port}/named`);
      const id = await mentionIn(server, "named", [bot, tlsBot]);
      await expectRefused(server, hooks, bot, "named", id);
      await expectRefused(server, hooks, tlsBot, "named", id);
      await hooks.jobsDone();
      assert.deepEqual(internal.allRequests(), []);
      assertNothingLeaked(hooks, SECRET);
    });

    test("an allowed server that redirects to loopback is refused at the redirect, and not retried", async () => {
      gateway.script("/bounce", [{ status: 302, body: "", headers: { location: `${internal.url}/bounced` } }]);
      internal.script("/bounced", [{ status: 200, body: SECRET }]);
      const bot = await hooks.createBot("Bouncing Bot", `${gateway.url}/bounce`);
      const id = await mentionIn(server, "bounce", [bot]);
      await expectRefused(server, hooks, bot, "bounce", id);
      await hooks.jobsDone();
      assert.equal(gateway.requests("/bounce").length, 1);
      assert.equal(internal.requests("/bounced").length, 0);
      assertNothingLeaked(hooks, SECRET);
    });

    test("an allowed host works end to end, by address or by a name that resolves to it, over HTTP or HTTPS, and its redirects are followed", async () => {
      const direct = await hooks.createBot("Allowed Bot", `${gateway.url}/allowed`);
      gateway.script("/allowed", [{ status: 200, body: JSON.stringify({ content: "allowed answer" }) }]);
      const named = await hooks.createBot("Allowed Named Bot", `http://localhost:${gateway.port}/allowed-named`);
      gateway.script("/allowed-named", [{ status: 200, body: JSON.stringify({ content: "named answer" }) }]);
      const hopping = await hooks.createBot("Hopping Bot", `${gateway.url}/hop`);
      gateway.script("/hop", [{ status: 307, body: "", headers: { location: "/hopped" } }]);
      gateway.script("/hopped", [{ status: 200, body: JSON.stringify({ content: "hopped answer" }) }]);
      const secure = await hooks.createBot("Allowed TLS Bot", `https://localhost:${tlsGateway.port}/secure`);
      tlsGateway.script("/secure", [{ status: 200, body: JSON.stringify({ content: "secure answer" }) }]);
      await mentionIn(server, "allowed", [direct, named, hopping, secure]);
      assert.equal((await hooks.waitForMessage((m) => m.sender_id === direct.id && m.subject === "allowed")).content, "allowed answer");
      assert.equal((await hooks.waitForMessage((m) => m.sender_id === secure.id && m.subject === "allowed")).content, "secure answer");
      assert.equal((await hooks.waitForMessage((m) => m.sender_id === named.id && m.subject === "allowed")).content, "named answer");
      assert.equal((await hooks.waitForMessage((m) => m.sender_id === hopping.id && m.subject === "allowed")).content, "hopped answer");
      // A 307 keeps the method and the body.
      const [first] = gateway.requests("/hop");
      const [second] = gateway.requests("/hopped");
      assert.equal(second.method, "POST");
      assert.deepEqual(second.body, first.body);
      assert.equal(second.body!.token, hopping.token);
    });
  });

  describe(`outgoing webhooks through OUTGOING_HTTP_PROXY [${store}]`, () => {
    let server: TestServer;
    let gateway: BotServer;
    let tlsGateway: BotServer;
    let internal: BotServer;
    let hooks: BotHarness;
    let proxy: HttpProxy;

    before(async () => {
      let certFile: string;
      ({ gateway, tlsGateway, internal, certFile } = await botServers());
      proxy = new HttpProxy("bot.example", gateway.url, tlsGateway.port);
      await proxy.listen();
      const withCredentials = proxy.url.replace("http://", "http://parley:s%40cret@");
      ({ server, hooks } = await startWith(store, gateway, certFile, { OUTGOING_HTTP_PROXY: withCredentials }));
    });
    after(async () => {
      await server?.stop();
      await Promise.all([gateway?.close(), tlsGateway?.close(), internal?.close(), proxy?.close()]);
    });

    test("a bot's requests go through the proxy, which resolves the name", async () => {
      gateway.script("/proxied", [{ status: 200, body: JSON.stringify({ content: "via the proxy" }) }]);
      const bot = await hooks.createBot("Proxied Bot", "http://bot.example/proxied");
      await mentionIn(server, "proxied", [bot]);
      assert.equal((await hooks.waitForMessage((m) => m.sender_id === bot.id && m.subject === "proxied")).content, "via the proxy");
      const at = proxy.targets.indexOf("http://bot.example/proxied");
      assert.ok(at >= 0);
      assert.equal(proxy.credentials[at], `Basic ${Buffer.from("parley:s@cret").toString("base64")}`);
      assert.equal(gateway.requests("/proxied")[0].body!.token, bot.token);
    });

    test("an https:// bot is reached through a CONNECT tunnel, TLS end to end", async () => {
      tlsGateway.script("/tunnelled", [{ status: 200, body: JSON.stringify({ content: "via the tunnel" }) }]);
      const bot = await hooks.createBot("Tunnelled Bot", "https://bot.example/tunnelled");
      await mentionIn(server, "tunnelled", [bot]);
      assert.equal((await hooks.waitForMessage((m) => m.sender_id === bot.id && m.subject === "tunnelled")).content, "via the tunnel");
      const at = proxy.targets.indexOf("bot.example:443");
      assert.ok(at >= 0);
      assert.equal(proxy.credentials[at], `Basic ${Buffer.from("parley:s@cret").toString("base64")}`);
      assert.equal(tlsGateway.requests("/tunnelled")[0].headers.host, "bot.example");
    });

    test("the proxy's refusal (407), of a plain request or a CONNECT, is reported without its body and not retried", async () => {
      internal.script("/behind-proxy", [{ status: 200, body: SECRET }]);
      const plain = await hooks.createBot("Proxy Refused Bot", `${internal.url}/behind-proxy`);
      const tunnel = await hooks.createBot("Tunnel Refused Bot", "https://internal.example/hook");
      const id = await mentionIn(server, "refused", [plain, tunnel]);
      await expectRefused(server, hooks, plain, "refused", id);
      await expectRefused(server, hooks, tunnel, "refused", id);
      await hooks.jobsDone();
      assert.equal(proxy.targets.filter((t) => t === `${internal.url}/behind-proxy`).length, 1);
      assert.equal(proxy.targets.filter((t) => t === "internal.example:443").length, 1);
      assert.equal(internal.requests("/behind-proxy").length, 0);
      assertNothingLeaked(hooks, PROXY_REFUSAL_BODY);
      assertNothingLeaked(hooks, "denied");
    });
  });
}
