/**
 * Reading, navigating and staying live in the web app, in a real browser against a real server
 * (SQLite): search with Zulip's syntax, the mentions and starred views, scrolling back through
 * history, marking read only what was seen, typing notices, presence, keyboard shortcuts, the
 * phone layout, recovering a lost event queue or network, the dark theme and the landmarks.
 * Everything is found by role and name; every wait is on a locator, a response or a request.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { signIn as signInAs } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

/** Messages seeded in #history, more than one page (100) of them. */
const HISTORY_SIZE = 150;

describe("web app: reading, navigation and liveness (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let owner: Page;
  let member: Page;
  let lobbyId: number;

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.member.email, fixtures.admin.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }, { name: "history" }, { name: "quiet" }], principals }));
    lobbyId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "lobby" })).stream_id;
    const say = async (user: TestUser, to: string, topic: string, content: string) => expectSuccess(await api.post(user, "/messages", { type: "stream", to, topic, content }));
    await say(fixtures.owner, "lobby", "apples", "I like green apples.");
    await say(fixtures.owner, "lobby", "bananas", "Bananas are yellow.");
    await say(fixtures.owner, "lobby", "apples", "Apple pie on Friday.");
    for (let i = 1; i <= HISTORY_SIZE; i += 1) await say(fixtures.owner, "history", "log", `History ${String(i).padStart(3, "0")}`);
    // Sent through the API, they are unread for their sender too; the owner has read them.
    expectSuccess(await api.post(fixtures.owner, "/mark_all_as_read", {}));
  });


  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });
  const articles = (page: Page) => feed(page).getByRole("article");
  const search = (page: Page) => page.getByRole("searchbox", { name: "Search" });
  const heading = (page: Page) => page.getByRole("banner").getByRole("heading", { level: 1 });

  const signIn = (page: Page, user: TestUser) => signInAs(page, server.url, user);

  async function searchFor(page: Page, text: string): Promise<void> {
    await search(page).fill(text);
    await search(page).press("Enter");
  }

  /** A message as a user sees it (id and flags), found by its text through the API. */
  async function messageOf(user: TestUser, content: string): Promise<{ id: number; flags: string[] }> {
    const res = expectSuccess(await server.api.get(user, "/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: "search", operand: content }]) }));
    const found = res.messages.find((m: { content: string }) => m.content.includes(content));
    assert.ok(found, `no message "${content}"`);
    return found;
  }

  async function flagsOf(user: TestUser, content: string): Promise<string[]> {
    return (await messageOf(user, content)).flags;
  }

  test("the page has its landmarks, and the message list is a log named Messages", async () => {
    ({ page: owner } = await suite.open());
    await signIn(owner, server.fixtures.owner);
    await owner.getByRole("banner").waitFor();
    await owner.getByRole("navigation", { name: "Channels and conversations" }).waitFor();
    await owner.getByRole("main").waitFor();
    await owner.getByRole("complementary", { name: "Users" }).waitFor();
    await feed(owner).waitFor();
    await owner.getByRole("button", { name: "Channels", exact: true }).waitFor({ state: "hidden" });
  });

  test("search: topic: and free text show only the matching messages, and the hash follows", async () => {
    await searchFor(owner, "topic:bananas");
    await articles(owner).filter({ hasText: "Bananas are yellow." }).waitFor();
    assert.equal(await articles(owner).count(), 1);
    assert.match(await heading(owner).innerText(), /topic:bananas/);
    assert.match(owner.url(), /#narrow\/topic\/bananas$/);

    await searchFor(owner, "pie");
    await articles(owner).filter({ hasText: "Apple pie on Friday." }).waitFor();
    assert.equal(await articles(owner).count(), 1);
    assert.match(owner.url(), /#narrow\/search\/pie$/);

    // A search naming one topic is that topic's view, with its link in the sidebar.
    await searchFor(owner, "channel:lobby topic:apples");
    await heading(owner).filter({ hasText: "#lobby › apples" }).waitFor();
    await articles(owner).filter({ hasText: "Apple pie on Friday." }).waitFor();
    assert.equal(await articles(owner).count(), 2);
    assert.equal(await search(owner).inputValue(), "channel:lobby topic:apples");

    await searchFor(owner, "sender:me -topic:apples has:link");
    await owner.getByText("No messages match your search.").waitFor();
    await owner.goBack();
    await heading(owner).filter({ hasText: "#lobby › apples" }).waitFor();
  });

  test("the mentions and starred views", async () => {
    ({ page: member } = await suite.open());
    await signIn(member, server.fixtures.member);
    const { api, fixtures } = server;
    expectSuccess(await api.post(fixtures.owner, "/messages", { type: "stream", to: "quiet", topic: "review", content: "@**Max Member** please review the draft." }));
    await member.getByRole("link", { name: "Mentions, 1 unread" }).click();
    await heading(member).filter({ hasText: "Mentions" }).waitFor();
    await articles(member).filter({ hasText: "please review the draft." }).waitFor();
    assert.equal(await articles(member).count(), 1);
    await member.getByRole("link", { name: "Mentions", exact: true }).waitFor();

    const bananas = expectSuccess(await api.get(fixtures.member, "/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: "topic", operand: "bananas" }]) }));
    expectSuccess(await api.post(fixtures.member, "/messages/flags", { messages: JSON.stringify([bananas.messages[0].id]), op: "add", flag: "starred" }));
    await member.getByRole("link", { name: "Starred messages" }).click();
    await articles(member).filter({ hasText: "Bananas are yellow." }).waitFor();
    assert.equal(await articles(member).count(), 1);
    assert.match(member.url(), /#narrow\/is\/starred$/);
  });

  test("scrolling to the top loads older messages and keeps the place", async () => {
    await owner.getByRole("link", { name: /^history(, \d+ unread)?$/ }).click();
    await articles(owner).filter({ hasText: "History 150" }).waitFor();
    assert.equal(await articles(owner).filter({ hasText: "History 001" }).count(), 0, "only the newest page is loaded");
    const older = owner.waitForResponse((res) => res.url().includes("/json/messages?") && res.url().includes("include_anchor=false"));
    const scroller = feed(owner).locator("xpath=..");
    await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
    await older;
    await articles(owner).filter({ hasText: "History 001" }).waitFor();
    await owner.getByText("This is the beginning of the conversation.").waitFor();
    // History 051 was at the top before; it stays in view rather than jumping away.
    const place = await articles(owner).filter({ hasText: "History 051" }).boundingBox();
    const view = await scroller.boundingBox();
    assert.ok(place && view && place.y >= view.y - place.height && place.y <= view.y + view.height, "the view stayed where it was");
  });

  test("unread messages are marked read only when they are scrolled into view", async () => {
    const flagged: number[] = [];
    const idsOf = (body: string | null): number[] => JSON.parse(new URLSearchParams(body ?? "").get("messages") ?? "[]");
    member.on("request", (req) => {
      if (req.url().endsWith("/json/messages/flags") && req.method() === "POST") flagged.push(...idsOf(req.postData()));
    });
    // Signing in showed the combined feed, which read what was on screen there: count from now.
    const counted = member.getByRole("link", { name: /^history, \d+ unread$/ });
    const before = Number(/(\d+) unread/.exec((await counted.getAttribute("aria-label")) ?? "")?.[1]);
    assert.ok(before > 100, `most of #history is unread (${before})`);
    const firstBatch = member.waitForRequest((res) => res.url().endsWith("/json/messages/flags"));
    await counted.click();
    await articles(member).filter({ hasText: "History 150" }).waitFor({ state: "attached" });
    assert.equal((await (await firstBatch).response())?.status(), 200);
    assert.ok(!(await flagsOf(server.fixtures.member, "History 150")).includes("read"), "the newest, below the fold, is still unread");
    // The sidebar count follows.
    await member.getByRole("link", { name: `history, ${before} unread` }).waitFor({ state: "detached" });
    await counted.waitFor();

    const newest = (await messageOf(server.fixtures.member, "History 150")).id;
    const lastBatch = member.waitForRequest((req) => req.url().endsWith("/json/messages/flags") && idsOf(req.postData()).includes(newest));
    await feed(member).locator("xpath=..").evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    assert.equal((await (await lastBatch).response())?.status(), 200);
    assert.ok((await flagsOf(server.fixtures.member, "History 150")).includes("read"));
    assert.ok(flagged.length < before, "messages never on screen stay unread");
  });

  test("a second user's typing shows as '… is typing' in the topic, and goes away when they stop", async () => {
    const topic = `#narrow/channel/${lobbyId}-lobby/topic/apples`;
    await owner.evaluate((hash) => (location.hash = hash), topic);
    await heading(owner).filter({ hasText: "#lobby › apples" }).waitFor();
    await member.evaluate((hash) => (location.hash = hash), topic);
    await heading(member).filter({ hasText: "#lobby › apples" }).waitFor();
    const box = member.getByRole("textbox", { name: "Message" });
    const started = member.waitForRequest((req) => req.url().endsWith("/json/typing") && (req.postData() ?? "").includes("op=start"));
    await box.pressSequentially("Thinking");
    assert.match((await started).postData() ?? "", /type=stream/);
    const notice = owner.getByRole("status").filter({ hasText: "Max Member is typing…" });
    await notice.waitFor();
    const stopped = member.waitForRequest((req) => req.url().endsWith("/json/typing") && (req.postData() ?? "").includes("op=stop"));
    await box.fill("");
    await stopped;
    await notice.waitFor({ state: "detached" });
  });

  test("presence: an active user has an active dot in the user list", async () => {
    const users = owner.getByRole("complementary", { name: "Users" });
    await users.getByRole("link", { name: "Max Member, active" }).waitFor();
    assert.equal(await users.getByRole("link", { name: "Max Member, active" }).locator(".presence-active").count(), 1);
    await users.getByRole("link", { name: "Gus Guest, offline" }).waitFor();
  });

  test("keyboard: c composes here, arrows select, r replies, Esc leaves, n goes to the next unread topic", async () => {
    const box = owner.getByRole("textbox", { name: "Message" });
    await owner.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));
    await owner.keyboard.press("c");
    await box.and(owner.locator(":focus")).waitFor();
    assert.equal(await owner.getByRole("textbox", { name: "Topic" }).inputValue(), "apples");
    await owner.keyboard.press("Escape");
    await box.and(owner.locator(":focus")).waitFor({ state: "detached" });

    await owner.keyboard.press("ArrowUp");
    const selected = feed(owner).locator("article[aria-current='true']");
    await selected.and(owner.locator(":focus")).waitFor();
    await owner.keyboard.press("ArrowUp");
    await selected.filter({ hasText: "I like green apples." }).waitFor();
    await owner.keyboard.press("r");
    await box.and(owner.locator(":focus")).waitFor();
    assert.equal(await owner.getByRole("textbox", { name: "Topic" }).inputValue(), "apples");
    await owner.keyboard.press("Escape");
    await owner.keyboard.press("Escape");
    await selected.waitFor({ state: "detached" });

    // Away from the combined feed: the new message would be on screen there, and marked read as
    // soon as it is seen (under load, before `n` is pressed).
    await owner.evaluate((hash) => (location.hash = hash), `#narrow/channel/${lobbyId}-lobby`);
    await heading(owner).filter({ hasText: /^#lobby$/ }).waitFor();
    // The owner's own API message in quiet/review (the mentions test) is unread until this reaches
    // the page: until then `n` would go there.
    expectSuccess(await server.api.post(server.fixtures.owner, "/mark_all_as_read", {}));
    await owner.getByRole("link", { name: "Combined feed", exact: true }).waitFor();
    expectSuccess(await server.api.post(server.fixtures.member, "/messages", { type: "stream", to: "quiet", topic: "standup", content: "Standup moved to 10:30." }));
    await owner.getByRole("link", { name: "quiet, 1 unread" }).waitFor();
    await owner.keyboard.press("n");
    await heading(owner).filter({ hasText: "#quiet › standup" }).waitFor();
    await owner.keyboard.press("Escape");
    await heading(owner).filter({ hasText: "Combined feed" }).waitFor();
  });

  test("live: a channel one is added to, its archiving and a user's new name show without reloading", async () => {
    const { api, fixtures } = server;
    const nav = member.getByRole("navigation", { name: "Channels and conversations" });
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "brand new" }], principals: [fixtures.owner.email, fixtures.member.email] }));
    const link = nav.getByRole("link", { name: "brand new", exact: true });
    await link.waitFor();
    const streamId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "brand new" })).stream_id;
    expectSuccess(await api.delete(fixtures.owner, `/streams/${streamId}`));
    await link.waitFor({ state: "detached" });

    expectSuccess(await api.patch(fixtures.owner, `/users/${fixtures.guest.id}`, { full_name: "Gus Renamed" }));
    await member.getByRole("complementary", { name: "Users" }).getByRole("link", { name: "Gus Renamed, offline" }).waitFor();
  });

  test("on a phone-sized screen the sidebar is behind the Channels menu button", async () => {
    const { context, page } = await suite.open({ width: 390, height: 800 });
    await signIn(page, server.fixtures.admin);
    const nav = page.getByRole("navigation", { name: "Channels and conversations" });
    const menu = page.getByRole("button", { name: "Channels", exact: true });
    assert.equal(await nav.isVisible(), false);
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    await menu.click();
    await nav.waitFor();
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    await nav.getByRole("link", { name: /^Combined feed/ }).and(page.locator(":focus")).waitFor();
    await page.keyboard.press("Escape");
    await nav.waitFor({ state: "hidden" });
    await menu.and(page.locator(":focus")).waitFor();
    await menu.click();
    await nav.getByRole("link", { name: /^lobby(, \d+ unread)?$/ }).click();
    await heading(page).filter({ hasText: "#lobby" }).waitFor();
    await nav.waitFor({ state: "hidden" });
    await articles(page).first().waitFor();
    const box = await page.getByRole("textbox", { name: "Message" }).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, "the compose box fits the screen");
    await context.close();
  });

  test("a lost event queue (BAD_EVENT_QUEUE_ID) or network: the app registers again and shows new messages", async () => {
    const registered = member.waitForResponse((res) => res.url().endsWith("/json/register"));
    await member.reload();
    const queueId: string = (await (await registered).json()).queue_id;
    await member.evaluate((hash) => (location.hash = hash), `#narrow/channel/${lobbyId}-lobby`);
    await heading(member).filter({ hasText: "#lobby" }).waitFor();

    const again = member.waitForResponse((res) => res.url().endsWith("/json/register") && res.status() === 200);
    expectSuccess(await server.api.delete(server.fixtures.member, "/events", { queue_id: queueId }));
    await again;
    expectSuccess(await server.api.post(server.fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "apples", content: "After the queue was lost." }));
    await articles(member).filter({ hasText: "After the queue was lost." }).waitFor();

    const context = member.context();
    await context.setOffline(true);
    const status = member.getByRole("status").filter({ hasText: "Reconnecting" });
    await status.waitFor();
    await context.setOffline(false);
    await status.waitFor({ state: "detached" });
    expectSuccess(await server.api.post(server.fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "apples", content: "Back online." }));
    await articles(member).filter({ hasText: "Back online." }).waitFor();
  });

  test("the dark theme: automatic follows the system's dark scheme; the setting overrides it", async () => {
    const { context, page } = await suite.open();
    await page.emulateMedia({ colorScheme: "dark" });
    await signIn(page, server.fixtures.admin);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "auto");
    assert.equal(await background(), "rgb(29, 30, 34)");
    expectSuccess(await server.api.patch(server.fixtures.admin, "/settings", { color_scheme: 3 }));
    await page.locator("html[data-theme='light']").waitFor({ state: "attached" });
    assert.equal(await background(), "rgb(255, 255, 255)");
    expectSuccess(await server.api.patch(server.fixtures.admin, "/settings", { color_scheme: 2 }));
    await page.locator("html[data-theme='dark']").waitFor({ state: "attached" });
    await page.emulateMedia({ colorScheme: "light" });
    assert.equal(await background(), "rgb(29, 30, 34)");
    await context.close();
  });
});
