/**
 * The Inbox (the home view), Recent conversations and the sidebar's channels in a real browser
 * against a real server (SQLite): unread conversations grouped with their counts, following
 * messages another user sends through the API and messages read, collapsing, filtering and
 * opening a conversation; the recent conversations with their filters, following new messages;
 * a channel's topics expanded in the sidebar; browsing, joining, leaving and creating channels as
 * a member; the Home view setting. Found by role and name; every wait is on a locator or a
 * response, never a fixed sleep.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

describe("web app: Inbox, Recent conversations and channels (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  /** The member's signed-in page, shared by the tests in order. */
  let member: Page;
  /** The member's unread message in #design. */
  let designId: number;

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.admin.email, fixtures.member.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }, { name: "design" }], principals }));
    // A channel only the owner is in: the member finds it in the channel browser.
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "elsewhere", description: "Off-topic" }] }));
    await say(fixtures.member, "lobby", "mine", "A topic the member started.");
    expectSuccess(await api.post(fixtures.member, "/mark_all_as_read", {}));
    await say(fixtures.admin, "lobby", "plans", "Lunch at noon?");
    await say(fixtures.admin, "lobby", "plans", "Or at one.");
    designId = await say(fixtures.owner, "design", "colors", "Blue or green?");
    expectSuccess(await api.post(fixtures.admin, "/messages", { type: "direct", to: JSON.stringify([fixtures.member.id]), content: "Got a minute?" }));
  });


  async function say(user: TestUser, channel: string, topic: string, content: string): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "stream", to: channel, topic, content })).id;
  }

  const heading = (page: Page) => page.getByRole("banner").getByRole("heading", { level: 1 });
  const nav = (page: Page) => page.getByRole("navigation", { name: "Channels and conversations" });
  const inbox = (page: Page) => page.getByRole("region", { name: "Inbox" });
  const recent = (page: Page) => page.getByRole("region", { name: "Recent conversations" });
  const rows = (page: Page) => recent(page).getByRole("table", { name: "Conversations" }).getByRole("row");
  const topicsOf = (page: Page) => rows(page).locator("td.recent-topic");

  test("the Inbox is the home view: unread conversations by DMs and channel, with counts, live as messages arrive and are read", async () => {
    ({ page: member } = await suite.open());
    await member.goto(server.url);
    await member.getByLabel("Email").fill(server.fixtures.member.email);
    await member.getByLabel("Password").fill(server.fixtures.member.password);
    await member.getByRole("button", { name: "Log in" }).click();
    await heading(member).filter({ hasText: "Inbox" }).waitFor();
    assert.equal(await nav(member).getByRole("link", { name: /^Inbox/ }).getAttribute("aria-current"), "page");

    const box = inbox(member);
    const dms = box.getByRole("region", { name: "Direct messages" });
    await dms.getByRole("link", { name: "Direct messages, 1 unread" }).waitFor();
    await dms.getByRole("link", { name: "Adam Admin, 1 unread", exact: true }).waitFor();
    const lobby = box.getByRole("region", { name: "#lobby" });
    await lobby.getByRole("link", { name: "#lobby, 2 unread", exact: true }).waitFor();
    await lobby.getByRole("link", { name: "plans, 2 unread", exact: true }).waitFor();
    assert.equal(await lobby.getByRole("link", { name: /^mine/ }).count(), 0, "the member's own message is read");
    await box.getByRole("region", { name: "#design" }).getByRole("link", { name: "colors, 1 unread", exact: true }).waitFor();

    // Live: a message from another user, then a message read elsewhere (another client).
    await say(server.fixtures.owner, "lobby", "plans", "One works.");
    await lobby.getByRole("link", { name: "plans, 3 unread", exact: true }).waitFor();
    await lobby.getByRole("link", { name: "#lobby, 3 unread", exact: true }).waitFor();
    expectSuccess(await server.api.post(server.fixtures.member, "/messages/flags", { messages: JSON.stringify([designId]), op: "add", flag: "read" }));
    await box.getByRole("region", { name: "#design" }).waitFor({ state: "detached" });

    // Groups collapse and expand, and stay as left after a reload.
    const toggle = lobby.getByRole("button", { name: "Topics in #lobby" });
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    await toggle.click();
    await lobby.getByRole("link", { name: /^plans/ }).waitFor({ state: "detached" });
    await member.reload();
    await lobby.getByRole("link", { name: "#lobby, 3 unread", exact: true }).waitFor();
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    assert.equal(await lobby.getByRole("link", { name: /^plans/ }).count(), 0);
    await toggle.click();
    await lobby.getByRole("link", { name: "plans, 3 unread", exact: true }).waitFor();

    // The filter box keeps the conversations whose channel, topic or people match.
    const filter = box.getByRole("searchbox", { name: "Filter conversations" });
    await filter.fill("plans");
    await dms.waitFor({ state: "detached" });
    await lobby.getByRole("link", { name: "plans, 3 unread", exact: true }).waitFor();
    await filter.fill("adam");
    await lobby.waitFor({ state: "detached" });
    await dms.waitFor();
    await filter.fill("");

    // A row opens its conversation; reading it there empties it from the Inbox.
    const read = member.waitForResponse((res) => res.url().endsWith("/json/messages/flags") && res.request().method() === "POST");
    await lobby.getByRole("link", { name: "plans, 3 unread", exact: true }).click();
    await heading(member).filter({ hasText: "#lobby › plans" }).waitFor();
    await member.getByRole("log", { name: "Messages" }).getByText("One works.").waitFor();
    assert.equal((await read).status(), 200);
    await nav(member).getByRole("link", { name: "Inbox, 1 unread", exact: true }).click();
    await heading(member).filter({ hasText: "Inbox" }).waitFor();
    await dms.waitFor();
    assert.equal(await lobby.count(), 0, "the topic was read");
  });

  test("Recent conversations: newest first with channel, participants, unread and time; live; the filters", async () => {
    await nav(member).getByRole("link", { name: "Recent conversations" }).click();
    await heading(member).filter({ hasText: "Recent conversations" }).waitFor();
    assert.equal(new URL(member.url()).hash, "#recent");
    const topics = topicsOf(member);
    await topics.first().waitFor();
    assert.deepEqual(await topics.allInnerTexts(), ["plans", "Adam Admin", "colors", "mine"]);
    const plans = rows(member).filter({ has: member.getByRole("link", { name: "#lobby › plans" }) });
    assert.equal(await plans.getByRole("link", { name: "#lobby", exact: true }).count(), 1);
    assert.match(await plans.locator(".recent-names").innerText(), /^Olivia Owner, Adam Admin$/);
    assert.match(await plans.locator("time").innerText(), /^Today, /);
    const dm = rows(member).filter({ has: member.getByRole("link", { name: "Adam Admin" }) });
    await dm.getByLabel("1 unread").waitFor();

    // Live: a new topic comes first.
    await say(server.fixtures.admin, "design", "logo", "A new logo draft.");
    await member.waitForFunction(() => document.querySelector(".recent-table tbody td.recent-topic")?.textContent === "logo");
    await rows(member).filter({ hasText: "logo" }).getByLabel("1 unread").waitFor();

    // Filters: text, unread only, participated.
    const filter = recent(member).getByRole("searchbox", { name: "Filter conversations" });
    await filter.fill("colo");
    await member.waitForFunction(() => document.querySelectorAll(".recent-table tbody tr").length === 1);
    assert.deepEqual(await topics.allInnerTexts(), ["colors"]);
    await filter.fill("");
    await recent(member).getByRole("checkbox", { name: "Unread only" }).check();
    await member.waitForFunction(() => document.querySelectorAll(".recent-table tbody tr").length === 2);
    assert.deepEqual(await topics.allInnerTexts(), ["logo", "Adam Admin"]);
    await recent(member).getByRole("checkbox", { name: "Unread only" }).uncheck();
    await recent(member).getByRole("checkbox", { name: "Participated" }).check();
    await member.waitForFunction(() => document.querySelectorAll(".recent-table tbody tr").length === 1);
    assert.deepEqual(await topics.allInnerTexts(), ["mine"]);
    await recent(member).getByRole("checkbox", { name: "Participated" }).uncheck();

    // A row opens its conversation.
    await rows(member).filter({ hasText: "colors" }).getByRole("link", { name: "#design › colors" }).click();
    await heading(member).filter({ hasText: "#design › colors" }).waitFor();
    await member.getByRole("log", { name: "Messages" }).getByText("Blue or green?").waitFor();
  });

  test("the sidebar lists a channel's topics, and a member browses, joins, leaves and creates channels", async () => {
    const side = nav(member);
    const toggle = side.getByRole("button", { name: "Topics of lobby" });
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    await toggle.click();
    const topics = side.getByRole("list", { name: "Topics in lobby" });
    await topics.getByRole("link", { name: "plans", exact: true }).waitFor();
    await topics.getByRole("link", { name: "mine", exact: true }).waitFor();
    await say(server.fixtures.admin, "lobby", "fresh", "Just in.");
    await topics.getByRole("link", { name: "fresh, 1 unread", exact: true }).waitFor();
    await toggle.click();
    await topics.waitFor({ state: "detached" });

    await side.getByRole("button", { name: "Browse channels" }).click();
    const browse = member.getByRole("dialog", { name: "Browse channels" });
    await browse.getByRole("button", { name: "Subscribe to #elsewhere" }).click();
    await side.getByRole("link", { name: "elsewhere", exact: true }).waitFor();
    await browse.getByRole("button", { name: "Unsubscribe from #elsewhere" }).click();
    await side.getByRole("link", { name: "elsewhere", exact: true }).waitFor({ state: "detached" });
    await browse.getByLabel("Channel name").fill("member made");
    await browse.getByRole("button", { name: "Create channel" }).click();
    await side.getByRole("link", { name: "member made", exact: true }).waitFor();
    await member.keyboard.press("Escape");
    await browse.waitFor({ state: "detached" });
    const made = expectSuccess(await server.api.get(server.fixtures.member, "/users/me/subscriptions")).subscriptions.map((s: { name: string }) => s.name);
    assert.ok(made.includes("member made") && !made.includes("elsewhere"), made.join(", "));
  });

  test("the Home view setting chooses what the app opens on", async () => {
    await member.getByRole("button", { name: "Settings" }).click();
    const dialog = member.getByRole("dialog", { name: "Settings" });
    await dialog.getByRole("tab", { name: "Display" }).click();
    const saved = member.waitForResponse((res) => res.url().endsWith("/json/settings") && res.request().method() === "PATCH");
    await dialog.getByLabel("Home view").selectOption({ label: "Recent conversations" });
    assert.equal((await saved).status(), 200);
    await member.keyboard.press("Escape");
    await member.goto(server.url);
    await heading(member).filter({ hasText: "Recent conversations" }).waitFor();
    await topicsOf(member).first().waitFor();
  });
});
