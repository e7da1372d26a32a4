/**
 * The web app's core loop in a real browser against a real server (SQLite): signing in, sending
 * and replying, live delivery to a second signed-in user, unread counts, logging out, and
 * recovering after the server restarts. Everything is found by its accessible role and name;
 * every wait is on a locator or a response, never a fixed sleep.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { startServerOnStore, type TestServer } from "../helpers/server.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("web app in a browser (sqlite)", () => {
  let restarted: TestServer | null = null;
  // Registered first, so it runs before the suite's own after(): the restarted process shares the suite's store.
  after(async () => {
    await restarted?.stopProcess();
  });
  const suite = useBrowserSuite();
  const { server } = suite;
  /** The owner's and the member's signed-in pages (the member in a second browser profile). */
  let owner: Page;
  let member: Page;

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.member.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }, { name: "quiet" }], principals }));
  });


  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });

  /** Signs in at the combined feed, or at `hash` (the home view, the Inbox, has its own suite: inbox.test.ts). */
  async function signIn(page: Page, user: TestUser, hash = "#feed"): Promise<void> {
    await page.goto(`${server.url}/${hash}`);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("textbox", { name: "Message" }).waitFor();
  }

  /** Sends from the compose box with Ctrl+Enter (the default: Enter makes a new line). */
  async function compose(page: Page, channel: string, topic: string, text: string): Promise<void> {
    await page.getByRole("combobox", { name: "Channel" }).selectOption({ label: `# ${channel}` });
    await page.getByRole("textbox", { name: "Topic" }).fill(topic);
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill(text);
    await box.press("Control+Enter");
    await box.and(page.locator(":placeholder-shown")).waitFor();
  }

  test("a wrong password shows the server's error; the right one opens the app", async () => {
    const { context, page } = await suite.open();
    await page.goto(server.url);
    await page.getByLabel("Email").fill(server.fixtures.owner.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /incorrect|invalid|wrong/i);
    await context.close();

    ({ page: owner } = await suite.open());
    // Notifications allowed, as a user who took the app's offer: no offer banner in the screenshot.
    await owner.context().grantPermissions(["notifications"], { origin: server.url });
    await signIn(owner, server.fixtures.owner);
    await owner.getByRole("navigation").getByRole("link", { name: "lobby", exact: true }).waitFor();
    await owner.getByRole("button", { name: "Log out" }).waitFor();
  });

  test("a message sent to a channel is rendered, and a second signed-in user sees it live", async () => {
    ({ page: member } = await suite.open());
    await signIn(member, server.fixtures.member);
    await compose(owner, "lobby", "plans", "Lunch at **noon** today?");
    const mine = feed(owner).getByRole("article").filter({ hasText: "Lunch at noon today?" });
    await mine.waitFor();
    assert.equal(await mine.locator("strong").innerText(), "noon", "the Markdown is rendered");
    assert.match((await mine.getAttribute("aria-label")) ?? "", /^Olivia Owner, /);
    await feed(member).getByText("Lunch at noon today?").waitFor();
  });

  test("replying in a topic: Enter sends once enter_sends is on, Shift+Enter makes a new line", async () => {
    await member.getByRole("link", { name: "plans" }).first().click();
    await member.getByRole("heading", { name: "#lobby › plans" }).waitFor();
    assert.equal(await member.getByRole("textbox", { name: "Topic" }).inputValue(), "plans", "the compose box follows the topic");
    const settingSaved = member.waitForResponse((res) => res.url().endsWith("/json/settings") && res.request().method() === "PATCH");
    await member.getByRole("checkbox", { name: "Press Enter to send" }).check();
    assert.equal((await settingSaved).status(), 200);
    const box = member.getByRole("textbox", { name: "Message" });
    await box.fill("Yes!");
    await box.press("Shift+Enter");
    await box.pressSequentially("Where?");
    assert.equal(await box.inputValue(), "Yes!\nWhere?");
    await box.press("Enter");
    await feed(member).getByText("Where?").waitFor();
    await feed(owner).getByRole("article").filter({ hasText: "Where?" }).waitFor();
    const res = expectSuccess(await server.api.get(server.fixtures.owner, "/messages", { anchor: "newest", num_before: 1, num_after: 0 }));
    assert.equal(res.messages[0].subject, "plans");
    assert.equal(res.messages[0].content, "<p>Yes!<br>\nWhere?</p>");
  });

  test("the unread count of a channel drops when its messages are read", async () => {
    await member.getByRole("link", { name: "quiet", exact: true }).click();
    await member.getByRole("heading", { name: "#quiet" }).waitFor();
    const { id } = expectSuccess(await server.api.post(server.fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "plans", content: "Ramen place on 5th." }));
    const unread = member.getByRole("link", { name: "lobby, 1 unread" });
    await unread.waitFor();
    // Reads are sent in batches as messages come into view: wait for the one holding this message.
    const holds = (body: string | null) => (JSON.parse(new URLSearchParams(body ?? "").get("messages") ?? "[]") as number[]).includes(id);
    const markedRead = member.waitForResponse((res) => res.url().endsWith("/json/messages/flags") && holds(res.request().postData()));
    await unread.click();
    await feed(member).getByText("Ramen place on 5th.").waitFor();
    assert.equal((await markedRead).status(), 200);
    await member.getByRole("link", { name: "lobby", exact: true }).waitFor();
    const res = expectSuccess(await server.api.get(server.fixtures.member, "/messages", { anchor: "newest", num_before: 1, num_after: 0 }));
    assert.ok(res.messages[0].flags.includes("read"), "the server has the message as read");
  });

  test("the Inbox, as docs/screenshot.png (desktop) and docs/screenshot-phone.png show it", async () => {
    const { api, fixtures } = server;
    // In the Inbox before the messages come (the feed would show them, and so read them).
    await owner.getByRole("navigation").getByRole("link", { name: /^Inbox/ }).click();
    expectSuccess(await api.post(fixtures.owner, "/mark_all_as_read", {}));
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "design" }, { name: "lobby" }], principals: [fixtures.owner.email, fixtures.admin.email, fixtures.member.email] }));
    const say = async (user: TestUser, to: string, topic: string, content: string) =>
      expectSuccess(await api.post(user, "/messages", { type: "stream", to, topic, content }));
    const direct = async (user: TestUser, to: TestUser[], content: string) =>
      expectSuccess(await api.post(user, "/messages", { type: "direct", to: JSON.stringify(to.map((u) => u.id)), content }));
    await say(fixtures.member, "lobby", "release 2.0", "The release branch is cut. Please run the suite against it.");
    await say(fixtures.admin, "lobby", "release 2.0", "All green here. @**Olivia Owner** can you sign off the notes?");
    await say(fixtures.member, "lobby", "release 2.0", "Notes are in the wiki.");
    await say(fixtures.admin, "lobby", "offsite", "Venue options are in the doc.");
    await say(fixtures.admin, "design", "settings page", "Mockups for the new settings page are up.");
    await say(fixtures.member, "design", "settings page", "Love the spacing.");
    await say(fixtures.member, "quiet", "standup", "Standup moved to 10:30.");
    await direct(fixtures.member, [fixtures.owner], "Got a minute for my pull request?");
    await direct(fixtures.admin, [fixtures.owner, fixtures.member], "Lunch on Friday?");
    const inbox = owner.getByRole("region", { name: "Inbox" });
    await inbox.getByRole("link", { name: "Adam Admin, Max Member, 1 unread", exact: true }).waitFor();
    await inbox.getByRole("link", { name: "release 2.0, 3 unread, mentions you", exact: true }).waitFor();
    await inbox.getByRole("link", { name: "standup, 1 unread", exact: true }).waitFor();
    await owner.screenshot({ path: path.join(ROOT, "docs/screenshot.png") });

    const { context, page: phone } = await suite.open({ width: 390, height: 844 });
    await context.grantPermissions(["notifications"], { origin: server.url });
    await signIn(phone, fixtures.owner, "#inbox");
    await phone.getByRole("region", { name: "Inbox" }).getByRole("link", { name: "standup, 1 unread", exact: true }).waitFor();
    await phone.screenshot({ path: path.join(ROOT, "docs/screenshot-phone.png") });
    await context.close();
  });

  // A graceful stop saves the event queues (events/persist.ts): the app polls its old queue again.
  // A lost queue (BAD_EVENT_QUEUE_ID) makes it register anew: navigation.test.ts.
  test("after the server restarts, the app reconnects and shows new messages", async () => {
    const port = new URL(server.url).port;
    await server.stopProcess();
    await member.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor();
    restarted = await startServerOnStore(server.store, server.fixtures, { PORT: port, EXTERNAL_URL: server.url });
    await member.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor({ state: "hidden", timeout: 30_000 });
    // The new process listens on the old port (server.url); restarted.url names the port it was not given.
    expectSuccess(await server.api.post(server.fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "plans", content: "Back after the restart." }));
    await feed(member).getByText("Back after the restart.").waitFor();
  });

  test("logging out shows the login page, also after a reload", async () => {
    await member.getByRole("button", { name: "Log out" }).click();
    await member.getByRole("button", { name: "Log in" }).waitFor();
    await member.reload();
    await member.getByLabel("Password").waitFor();
    assert.equal(await feed(member).count(), 0);
  });
});
