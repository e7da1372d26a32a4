/**
 * Muting and following in a real browser against a real server (SQLite), as upstream: a topic
 * muted from its sidebar menu leaves the combined feed (loaded and live) and the channel's and
 * feed's unread counts; a topic followed from its recipient bar is marked; a user muted from the
 * user list has their messages collapsed behind a reveal and their direct messages kept out of
 * the unread counts, and is unmuted from the sender's card. Found by role and name; every wait is
 * on a locator or a response.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { signIn } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

describe("muting topics and users in a browser (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let member: Page;

  const feed = () => member.getByRole("log", { name: "Messages" });
  const article = (text: string) => feed().getByRole("article").filter({ hasText: text });
  const sidebar = () => member.getByRole("navigation", { name: "Channels and conversations" });
  const heading = (name: string) => member.getByRole("banner").getByRole("heading", { name });
  const topicRow = (topic: string) =>
    sidebar().getByRole("list", { name: "Topics in lobby" }).getByRole("listitem").filter({ has: member.getByRole("link", { name: new RegExp(`^${topic}(, \\d+ unread)?$`) }) });

  async function say(user: TestUser, content: string, topic: string): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "stream", to: "lobby", topic, content })).id;
  }

  async function showLobby(): Promise<void> {
    await sidebar().getByRole("link", { name: /^lobby(, \d+ unread)?$/ }).click();
    await heading("#lobby").waitFor();
  }

  async function topicAction(topic: string, item: string): Promise<void> {
    await topicRow(topic).getByRole("button", { name: `Topic actions for ${topic}` }).click();
    await member.getByRole("menu", { name: `Topic actions for ${topic}` }).getByRole("menuitem", { name: item }).click();
  }

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.member.email, fixtures.admin.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals }));
    await say(fixtures.owner, "First noise", "noisy");
    await say(fixtures.owner, "First signal", "quiet");
    ({ page: member } = await suite.open());
    await signIn(member, server.url, fixtures.member);
    await showLobby();
    await article("First signal").and(member.locator("article:not(.unread)")).waitFor();
  });


  test("a topic muted from the sidebar leaves the combined feed and every unread count but its own", async () => {
    const { fixtures, api } = server;
    await topicAction("noisy", "Mute topic");
    await topicRow("noisy").getByRole("img", { name: "Muted topic" }).waitFor();

    // Away from the channel, new messages stay unread.
    await sidebar().getByRole("link", { name: "Starred messages" }).click();
    await heading("Starred messages").waitFor();
    await say(fixtures.owner, "Signal two", "quiet");
    const noise = await say(fixtures.owner, "More noise", "noisy");
    await say(fixtures.owner, "Signal three", "quiet");
    // The direct message comes after them: once it is counted, so are they.
    expectSuccess(await api.post(fixtures.admin, "/messages", { type: "direct", to: JSON.stringify([fixtures.member.id]), content: "ping" }));
    await sidebar().getByRole("link", { name: `${fixtures.admin.fullName}, 1 unread` }).waitFor();
    assert.equal(await sidebar().getByRole("link", { name: /^Combined feed/ }).getAttribute("aria-label"), "Combined feed, 3 unread");
    assert.equal(await sidebar().getByRole("link", { name: /^lobby/ }).getAttribute("aria-label"), "lobby, 2 unread");

    // The combined feed leaves the muted topic out, as loaded and live.
    await sidebar().getByRole("link", { name: /^Combined feed/ }).click();
    await article("Signal three").waitFor();
    assert.equal(await article("More noise").count(), 0);
    assert.equal(await article("First noise").count(), 0);
    await say(fixtures.owner, "Live noise", "noisy");
    await say(fixtures.owner, "Live signal", "quiet");
    await article("Live signal").waitFor();
    assert.equal(await article("Live noise").count(), 0);
    const flags = expectSuccess(await api.get(fixtures.member, `/messages/${noise}`)).message.flags as string[];
    assert.ok(!flags.includes("read"), "the muted topic's message is still unread");

    // In the channel the muted topic shows, and is unmuted from its menu.
    await showLobby();
    await article("Live noise").waitFor();
    await topicAction("noisy", "Unmute topic");
    await topicRow("noisy").getByRole("img", { name: "Muted topic" }).waitFor({ state: "detached" });
  });

  test("a topic followed from its recipient bar is marked there and in the sidebar", async () => {
    await feed().getByRole("button", { name: "Topic actions for quiet" }).last().click();
    await member.getByRole("menu", { name: "Topic actions for quiet" }).getByRole("menuitem", { name: "Follow topic" }).click();
    await feed().getByRole("img", { name: "Followed topic" }).first().waitFor();
    await topicRow("quiet").getByRole("img", { name: "Followed topic" }).waitFor();
    await topicAction("quiet", "Unfollow topic");
    await topicRow("quiet").getByRole("img", { name: "Followed topic" }).waitFor({ state: "detached" });
    assert.equal(await feed().getByRole("img", { name: "Followed topic" }).count(), 0);
  });

  test("a muted user's messages collapse behind a reveal, and their direct messages stay read", async () => {
    const { fixtures, api } = server;
    const owner = fixtures.owner.fullName;
    const users = member.getByRole("complementary", { name: "Users" });
    await users.getByRole("button", { name: `Actions for ${owner}` }).click();
    await member.getByRole("dialog", { name: owner }).getByRole("button", { name: "Mute user" }).click();
    await users.getByRole("link", { name: new RegExp(`^${owner}, \\w+, muted$`) }).waitFor();

    const hidden = feed().getByRole("article", { name: /^Muted user, / });
    await hidden.first().waitFor();
    assert.equal(await article("Live signal").count(), 0);
    assert.equal(await hidden.first().getByText("This message was hidden because you muted the sender.").count(), 1);
    const last = hidden.last();
    await last.getByRole("button", { name: "Reveal message" }).click();
    const revealed = article("Live signal");
    await revealed.waitFor();

    const before = await sidebar().getByRole("link", { name: /^Combined feed/ }).getAttribute("aria-label");
    const dm = expectSuccess(await api.post(fixtures.owner, "/messages", { type: "direct", to: JSON.stringify([fixtures.member.id]), content: "A secret" })).id;
    // The conversation shows up, with nothing unread.
    await sidebar().getByRole("link", { name: owner, exact: true }).waitFor();
    assert.equal(await sidebar().getByRole("link", { name: /^Combined feed/ }).getAttribute("aria-label"), before);
    assert.ok((expectSuccess(await api.get(fixtures.member, `/messages/${dm}`)).message.flags as string[]).includes("read"));

    // Unmuted from the card of the revealed message's sender.
    await revealed.getByRole("button", { name: owner, exact: true }).click();
    await member.getByRole("dialog", { name: owner }).getByRole("button", { name: "Unmute user" }).click();
    await hidden.first().waitFor({ state: "detached" });
    await article("First signal").waitFor();
    await users.getByRole("link", { name: new RegExp(`^${owner}, \\w+$`) }).waitFor();
  });
});
