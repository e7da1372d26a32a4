/**
 * Linkifier patterns cannot freeze the server: patterns that backtrack catastrophically in
 * JavaScript's RegExp are either refused with upstream's error or accepted and matched in linear
 * time, so a member's worst 10,000-character message renders and sends quickly, in its content and
 * in its topic; a 10 MB pattern is refused at once; a huge /messages/render body gets a 4xx.
 * (The strict 50 ms bound is timed on the renderer itself: test/unit/linkifier-speed.test.ts.)
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { describeEachStore } from "../helpers/suite.ts";

/** What a request may take here, on a shared test machine (the render itself takes milliseconds). */
const SLOW_MS = 1000;
const MESSAGE_LENGTH = 10_000;

/** Each pattern, its URL template and its worst 10,000-character messages. */
const HOSTILE: Array<{ pattern: string; url_template: string; texts: string[] }> = [
  { pattern: "(?P<id>(.*a){12})!", url_template: "https://e.com/{id}", texts: ["a".repeat(MESSAGE_LENGTH), `${"a".repeat(MESSAGE_LENGTH - 1)}!`] },
  { pattern: "\\d*\\d*\\d*\\d*\\d*\\d*", url_template: "https://e.com/", texts: ["1".repeat(MESSAGE_LENGTH), "1 ".repeat(MESSAGE_LENGTH / 2)] },
  { pattern: ".*.*.*.*.*.*", url_template: "https://e.com/", texts: ["a".repeat(MESSAGE_LENGTH), "a ".repeat(MESSAGE_LENGTH / 2)] },
  { pattern: "[0-9 ]*[0-9 ]*[0-9 ]*[0-9 ]*", url_template: "https://e.com/", texts: ["1 ".repeat(MESSAGE_LENGTH / 2), `${"1 ".repeat(MESSAGE_LENGTH / 2 - 1)}x!`] },
  { pattern: "(?P<id>a(?:.*b)?)", url_template: "https://e.com/{id}", texts: ["a ".repeat(MESSAGE_LENGTH / 2)] },
];

describeEachStore("hostile linkifier patterns", (server) => {
  before(async () => {
    const { owner, member } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [owner.id, member.id] }));
  });

  /** The response and how long it took. */
  async function timed<T>(request: () => Promise<T>): Promise<[T, number]> {
    const started = performance.now();
    const res = await request();
    return [res, performance.now() - started];
  }

  for (const { pattern, url_template, texts } of HOSTILE) {
    test(`${pattern}: accepted, then the worst messages render and send quickly`, async () => {
      const { admin, member } = server.fixtures;
      const { id } = expectSuccess(await server.api.post(admin, "/realm/filters", { pattern, url_template }));
      try {
        for (const content of texts) {
          const [rendered, renderMs] = await timed(() => server.api.post(member, "/messages/render", { content }));
          assert.ok(expectSuccess(rendered).rendered.startsWith("<p>"));
          assert.ok(renderMs < SLOW_MS, `render of ${JSON.stringify(content.slice(0, 6))}...: ${renderMs.toFixed(0)} ms`);
          // The topic is linkified too (at most 60 characters of the same text).
          const topic = content.slice(0, 60).trim();
          const [sent, sendMs] = await timed(() => server.api.post(member, "/messages", { type: "stream", to: "general", topic, content }));
          const messageId = expectSuccess(sent).id;
          assert.ok(sendMs < SLOW_MS, `send of ${JSON.stringify(content.slice(0, 6))}...: ${sendMs.toFixed(0)} ms`);
          const [fetched, fetchMs] = await timed(() => server.api.get(member, `/messages/${messageId}`));
          assert.equal(expectSuccess(fetched).message.subject, topic);
          assert.ok(fetchMs < SLOW_MS, `fetch: ${fetchMs.toFixed(0)} ms`);
        }
      } finally {
        expectSuccess(await server.api.delete(admin, `/realm/filters/${id}`));
      }
    });
  }

  test("a pattern RE2 cannot compile is refused with upstream's error, and nothing is saved", async () => {
    const { admin } = server.fixtures;
    const before = expectSuccess(await server.api.get(admin, "/realm/linkifiers")).linkifiers.length;
    expectError(await server.api.post(admin, "/realm/filters", { pattern: "(?P<id>a)(?=b)", url_template: "https://e.com/{id}" }), "BAD_REQUEST", "Bad regular expression: invalid perl operator: (?=");
    expectError(await server.api.post(admin, "/realm/filters", { pattern: "(?P<id>\\d)\\1", url_template: "https://e.com/{id}" }), "BAD_REQUEST", "Bad regular expression: invalid escape sequence: \\1");
    expectError(await server.api.post(admin, "/realm/filters", { pattern: "(?P<id>(?:.*a){200})", url_template: "https://e.com/{id}" }), "BAD_REQUEST", "Bad regular expression: pattern too large - compile failed");
    assert.equal(expectSuccess(await server.api.get(admin, "/realm/linkifiers")).linkifiers.length, before);
  });

  test("a 10 MB pattern is refused at once, before it is read as a pattern", async () => {
    const { admin } = server.fixtures;
    const huge = "x".repeat(10 * 1024 * 1024);
    // The same body with nothing to check: what sending and parsing 10 MB costs here.
    const [blank, baseMs] = await timed(() => server.api.post(admin, "/realm/filters", { pattern: "", url_template: huge }));
    expectError(blank, "BAD_REQUEST", "This field cannot be blank.");
    const [res, ms] = await timed(() => server.api.post(admin, "/realm/filters", { pattern: huge, url_template: "https://e.com/" }));
    expectError(res, "BAD_REQUEST", `Ensure this value has at most 1000 characters (it has ${huge.length}).`);
    assert.ok(ms < 2 * baseMs + SLOW_MS, `${ms.toFixed(0)} ms, against ${baseMs.toFixed(0)} ms for the body alone`);
  });

  test("a huge /messages/render body gets a 4xx, never a 5xx; the largest message renders", async () => {
    const { member } = server.fixtures;
    for (const content of ["a".repeat(10 * 1024 * 1024), "> ".repeat(1024 * 1024), `${"[".repeat(MESSAGE_LENGTH)}x`]) {
      const res = await server.api.post(member, "/messages/render", { content });
      assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
      assert.equal(res.body.result, "error");
    }
    expectError(await server.api.post(member, "/messages/render", { content: "a".repeat(MESSAGE_LENGTH + 1) }), "BAD_REQUEST", "content is too long (limit: 10000 characters)");
    expectSuccess(await server.api.post(member, "/messages/render", { content: "a".repeat(MESSAGE_LENGTH) }));
    // Code points are counted, as upstream counts them.
    expectSuccess(await server.api.post(member, "/messages/render", { content: "😀".repeat(MESSAGE_LENGTH) }));
  });
});
