/**
 * A newcomer's first hour in the web app (issue 39's "Broken" list), in a real browser against a
 * real server (SQLite): a direct message's recipient typed by name, Back after a link, the
 * default channels of an invitation and the channel browser, a channel one has not joined,
 * marks of a follow-on message, desktop notifications, a late inline image, drafts per
 * conversation, and the smaller things (reconnecting, the page's icon, plurals, the README's menu
 * names, the unread count in the title). Found by role and name; every wait is on a locator,
 * a response or a page function, never a fixed sleep.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Page, Route } from "playwright-core";
import { uploadFile, PNG } from "../api/uploads-support.ts";
import { signIn as signInAs } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { chimeCount, shownNotifications, WATCH_NOTIFICATIONS } from "../helpers/notifications-watch.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("web app: a newcomer's first hour (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let generalId: number;
  let lobbyId: number;

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.admin.email, fixtures.member.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }, { name: "general" }], principals }));
    // Channels only the owner is in: the others can see them, not read them in the sidebar.
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "elsewhere", description: "Off-topic" }, { name: "archive room" }] }));
    generalId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "general" })).stream_id;
    lobbyId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "lobby" })).stream_id;
    expectSuccess(await api.post(fixtures.owner, "/default_streams", { stream_id: generalId }));
    expectSuccess(await api.post(fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "welcome", content: "Hello all." }));
  });


  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });
  const articles = (page: Page) => feed(page).getByRole("article");
  const heading = (page: Page) => page.getByRole("banner").getByRole("heading", { level: 1 });
  const nav = (page: Page) => page.getByRole("navigation", { name: "Channels and conversations" });
  const messageBox = (page: Page) => page.getByRole("textbox", { name: "Message" });

  async function signedIn(user: TestUser, viewport?: { width: number; height: number }): Promise<Page> {
    const { page } = await suite.open(viewport);
    await signInAs(page, server.url, user);
    return page;
  }

  async function go(page: Page, hash: string): Promise<void> {
    await page.evaluate((h) => (location.hash = h), hash);
  }

  async function latestId(user: TestUser): Promise<number> {
    return expectSuccess(await server.api.get(user, "/messages", { anchor: "newest", num_before: 1, num_after: 0 })).messages[0].id;
  }

  test("1. a direct message's recipient is typed by name (compose's button, the x key, the phone layout)", async () => {
    const member = await signedIn(server.fixtures.member);
    await member.getByRole("button", { name: "Direct message" }).click();
    const to = member.getByRole("textbox", { name: "To" });
    await to.click();
    await to.pressSequentially("Adam Admin");
    assert.equal(await to.inputValue(), "Adam Admin");
    await messageBox(member).fill("Hi Adam, a word in private.");
    await messageBox(member).press("Control+Enter");
    await articles(member).filter({ hasText: "Hi Adam, a word in private." }).waitFor();
    const sent = expectSuccess(await server.api.get(server.fixtures.admin, `/messages/${await latestId(server.fixtures.admin)}`)).message;
    assert.equal(sent.content, "<p>Hi Adam, a word in private.</p>");

    // The x key, from a channel's compose box.
    await go(member, `#narrow/channel/${lobbyId}-lobby`);
    await member.getByRole("textbox", { name: "Topic" }).waitFor();
    await member.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));
    await member.keyboard.press("x");
    await to.and(member.locator(":focus")).waitFor();
    await member.keyboard.type("Mona");
    assert.equal(await to.inputValue(), "Mona");
    await member.context().close();

    const phone = await signedIn(server.fixtures.member, { width: 390, height: 800 });
    await phone.getByRole("button", { name: "Direct message" }).click();
    await phone.getByRole("textbox", { name: "To" }).pressSequentially("owner@example.com");
    assert.equal(await phone.getByRole("textbox", { name: "To" }).inputValue(), "owner@example.com");
    await phone.context().close();
  });

  test("2. links in messages open in a new tab; Back after leaving the app finds it still signed in", async () => {
    const url = expectSuccess(await uploadFile(server, server.fixtures.owner, "notes.txt", "Meeting notes", "text/plain")).url;
    expectSuccess(await server.api.post(server.fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "links", content: `The [notes](${url}) and #**general**.` }));
    const member = await signedIn(server.fixtures.member);
    const message = articles(member).filter({ hasText: "The notes and" });
    const link = message.getByRole("link", { name: "notes" });
    assert.equal(await link.getAttribute("target"), "_blank");
    assert.equal(await link.getAttribute("rel"), "noopener noreferrer");
    // The channel link stays in the app.
    assert.equal(await message.getByRole("link", { name: "#general" }).getAttribute("target"), null);
    const opened = member.context().waitForEvent("page");
    await link.click();
    await (await opened).close();
    await messageBox(member).waitFor();

    // The page asked for the session before signing in; Back must not find that answer again.
    await member.goto(`${server.url}${url}`);
    await member.getByText("Meeting notes").waitFor();
    await member.goBack();
    await messageBox(member).waitFor();
    assert.equal(await member.getByRole("heading", { name: "Log in to Parley" }).count(), 0);
    const session = await member.request.get(`${server.url}/json/session`);
    assert.match(session.headers()["cache-control"] ?? "", /no-store/);
    await member.context().close();
  });

  test("3. an invitation checks the default channels; the newcomer lands there, and browses, joins, leaves and creates channels", async () => {
    const owner = await signedIn(server.fixtures.owner);
    await owner.getByRole("button", { name: "Settings" }).click();
    const dialog = owner.getByRole("dialog", { name: "Settings" });
    await dialog.getByRole("tab", { name: "Users" }).click();
    const panel = dialog.getByRole("tabpanel");
    assert.equal(await panel.getByRole("checkbox", { name: "general" }).isChecked(), true, "the default channel is checked");
    assert.equal(await panel.getByRole("checkbox", { name: "lobby" }).isChecked(), false);
    await panel.getByRole("button", { name: "Create invitation link" }).click();
    const link = await panel.getByRole("textbox", { name: "Invitation link" }).inputValue();
    await owner.context().close();

    const { page: newcomer } = await suite.open();
    await newcomer.goto(link);
    await newcomer.getByLabel("Email").fill("nora@example.com");
    await newcomer.getByLabel("Full name").fill("Nora Newcomer");
    await newcomer.getByLabel("Password").fill("a long enough password 9");
    await newcomer.getByRole("button", { name: "Sign up" }).click();
    await nav(newcomer).getByRole("link", { name: /^general(, \d+ unread)?$/ }).waitFor();

    await nav(newcomer).getByRole("button", { name: "Browse channels" }).click();
    const browse = newcomer.getByRole("dialog", { name: "Browse channels" });
    await browse.getByRole("button", { name: "Unsubscribe from #general" }).waitFor();
    await browse.getByRole("button", { name: "Subscribe to #elsewhere" }).click();
    await nav(newcomer).getByRole("link", { name: /^elsewhere(, \d+ unread)?$/ }).waitFor();
    await browse.getByRole("button", { name: "Unsubscribe from #elsewhere" }).click();
    await nav(newcomer).getByRole("link", { name: /^elsewhere/ }).waitFor({ state: "detached" });

    await browse.getByLabel("Channel name").fill("newcomers corner");
    await browse.getByRole("button", { name: "Create channel" }).click();
    await nav(newcomer).getByRole("link", { name: "newcomers corner", exact: true }).waitFor();
    await newcomer.keyboard.press("Escape");
    await browse.waitFor({ state: "detached" });
    await newcomer.context().close();
  });

  test("4. a channel one has not joined shows its name and a Subscribe button (search, and a #channel link)", async () => {
    const member = await signedIn(server.fixtures.member);
    await member.getByRole("searchbox", { name: "Search" }).fill("channel:elsewhere");
    await member.getByRole("searchbox", { name: "Search" }).press("Enter");
    await heading(member).filter({ hasText: "#elsewhere" }).waitFor();
    assert.equal(await member.getByText("unknown channel").count(), 0);
    const notice = member.getByRole("region", { name: "Not subscribed" });
    await notice.getByRole("button", { name: "Subscribe to #elsewhere" }).click();
    await notice.waitFor({ state: "detached" });
    await nav(member).getByRole("link", { name: /^elsewhere(, \d+ unread)?$/ }).waitFor();

    expectSuccess(await server.api.post(server.fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "links", content: "Old notes are in #**archive room**." }));
    await go(member, `#narrow/channel/${lobbyId}-lobby`);
    await articles(member).filter({ hasText: "Old notes are in" }).getByRole("link", { name: "#archive room" }).click();
    await heading(member).filter({ hasText: "#archive room" }).waitFor();
    await member.getByRole("region", { name: "Not subscribed" }).getByRole("button", { name: "Subscribe to #archive room" }).waitFor();
    await member.context().close();
  });

  test("5. '(edited)' and the star of a follow-on message do not cover its text", async () => {
    const { api, fixtures } = server;
    expectSuccess(await api.post(fixtures.admin, "/messages", { type: "stream", to: "lobby", topic: "marks", content: "First of two." }));
    const second = expectSuccess(await api.post(fixtures.admin, "/messages", { type: "stream", to: "lobby", topic: "marks", content: "Second, soon edited." })).id;
    expectSuccess(await api.patch(fixtures.admin, `/messages/${second}`, { content: "Wide text: the second one, edited." }));
    expectSuccess(await api.post(fixtures.member, "/messages/flags", { messages: JSON.stringify([second]), op: "add", flag: "starred" }));
    const member = await signedIn(fixtures.member);
    const message = articles(member).filter({ hasText: "Wide text" });
    const text = await message.locator(".message-content p").boundingBox();
    for (const mark of [message.getByText("(edited)"), message.getByTitle("Starred", { exact: true })]) {
      const box = await mark.boundingBox();
      assert.ok(text && box, "both are shown");
      const overlap = box.x < text.x + text.width && text.x < box.x + box.width && box.y < text.y + text.height && text.y < box.y + box.height;
      assert.ok(!overlap, `${JSON.stringify(box)} covers the text at ${JSON.stringify(text)}`);
    }
    await member.context().close();
  });

  test("6. a desktop notification (permission granted) for a direct message, none for a muted topic", async () => {
    const { api, fixtures } = server;
    const { context, page: member } = await suite.open();
    await context.grantPermissions(["notifications"], { origin: server.url });
    await context.addInitScript(WATCH_NOTIFICATIONS);
    await signInAs(member, server.url, fixtures.member);
    await member.getByRole("button", { name: "Settings" }).click();
    await member.getByRole("dialog", { name: "Settings" }).getByRole("tab", { name: "Notifications" }).click();
    await member.getByText("This browser shows Parley's notifications").waitFor();
    await member.keyboard.press("Escape");
    // Reading another conversation than the ones written to.
    await go(member, "#narrow/is/starred");
    await heading(member).filter({ hasText: "Starred messages" }).waitFor();
    const shown = () => shownNotifications(member);

    expectSuccess(await api.post(fixtures.admin, "/messages", { type: "direct", to: JSON.stringify([fixtures.member.id]), content: "Are you there?" }));
    await member.waitForFunction(() => (window as unknown as { shownNotifications: unknown[] }).shownNotifications.length === 1);
    assert.deepEqual(await shown(), [{ title: "Adam Admin", body: "Are you there?" }]);
    assert.ok((await chimeCount(member)) >= 1, "a sound was played");

    // Channel notifications on, one topic muted: its messages stay quiet, the others' do not.
    expectSuccess(await api.patch(fixtures.member, "/settings", { enable_stream_desktop_notifications: true }));
    expectSuccess(await api.post(fixtures.member, "/user_topics", { stream_id: lobbyId, topic: "muted chatter", visibility_policy: 1 }));
    expectSuccess(await api.post(fixtures.admin, "/messages", { type: "stream", to: "lobby", topic: "muted chatter", content: "Nobody needs to hear this." }));
    expectSuccess(await api.post(fixtures.admin, "/messages", { type: "stream", to: "lobby", topic: "news", content: "Lunch is served." }));
    await member.waitForFunction(() => (window as unknown as { shownNotifications: unknown[] }).shownNotifications.length === 2);
    assert.deepEqual((await shown())[1], { title: "Adam Admin (#lobby > news)", body: "Lunch is served." });
    expectSuccess(await api.patch(fixtures.member, "/settings", { enable_stream_desktop_notifications: false }));
    await context.close();
  });

  test("7. an inline image that loads late keeps a reader at the bottom there, and the message is read", async () => {
    const { api, fixtures } = server;
    // Nothing unread: the channel opens at its bottom.
    expectSuccess(await api.post(fixtures.member, "/mark_all_as_read", {}));
    const member = await signedIn(fixtures.member);
    await go(member, `#narrow/channel/${lobbyId}-lobby`);
    await heading(member).filter({ hasText: /^#lobby$/ }).waitFor();
    await articles(member).filter({ hasText: "Hello all." }).waitFor();
    const atBottom = () => {
      const el = document.querySelector(".feed-scroll");
      return el !== null && el.scrollHeight - el.scrollTop - el.clientHeight < 2;
    };
    await member.waitForFunction(atBottom);
    // The image is held until the message is on screen, then answered with a tall picture.
    const gate = { open: () => undefined as void };
    const held = new Promise<void>((resolve) => (gate.open = resolve));
    const requested = new Promise<void>((resolve) => {
      void member.route("**/user_uploads/**", async (route: Route) => {
        resolve();
        await held;
        await route.fulfill({ contentType: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="1200"><rect width="300" height="1200" fill="#888"/></svg>' });
      });
    });
    const url = expectSuccess(await uploadFile(server, fixtures.admin, "tall.png", PNG, "image/png")).url;
    const id = expectSuccess(await api.post(fixtures.admin, "/messages", { type: "stream", to: "lobby", topic: "photos", content: `Look: [tall.png](${url})` })).id;
    await articles(member).filter({ hasText: "Look:" }).waitFor();
    await requested;
    gate.open();
    await articles(member).filter({ hasText: "Look:" }).locator(".message_inline_image img").evaluate((img: HTMLImageElement) => (img.complete && img.naturalHeight > 0 ? undefined : new Promise((resolve) => img.addEventListener("load", resolve))));
    await member.waitForFunction(atBottom, undefined, { timeout: 3_000 });
    await member.waitForFunction(async (messageId) => {
      const res = await fetch(`/json/messages/${messageId}`);
      const body = await res.json();
      return body.message.flags.includes("read");
    }, id, { polling: 200 });
    await member.context().close();
  });

  test("8. drafts stay with their conversation, across channel switches and a reload", async () => {
    const member = await signedIn(server.fixtures.member);
    const topic = member.getByRole("textbox", { name: "Topic" });
    await go(member, `#narrow/channel/${lobbyId}-lobby/topic/plans`);
    await heading(member).filter({ hasText: "#lobby › plans" }).waitFor();
    await messageBox(member).fill("Half a thought");
    await nav(member).getByRole("link", { name: /^general(, \d+ unread)?$/ }).click();
    await heading(member).filter({ hasText: /^#general$/ }).waitFor();
    assert.equal(await messageBox(member).inputValue(), "", "the draft stays in #lobby > plans");
    await topic.fill("ideas");
    await messageBox(member).fill("An idea for general");
    // In #lobby, the topic last written to there comes back with its draft.
    await nav(member).getByRole("link", { name: /^lobby(, \d+ unread)?$/ }).click();
    await heading(member).filter({ hasText: /^#lobby$/ }).waitFor();
    assert.equal(await topic.inputValue(), "plans");
    assert.equal(await messageBox(member).inputValue(), "Half a thought");
    await member.goBack();
    await heading(member).filter({ hasText: /^#general$/ }).waitFor();
    assert.equal(await topic.inputValue(), "ideas", "the topic typed in #general is back");
    assert.equal(await messageBox(member).inputValue(), "An idea for general");
    await member.goBack();
    await heading(member).filter({ hasText: "#lobby › plans" }).waitFor();
    assert.equal(await messageBox(member).inputValue(), "Half a thought");
    await member.reload();
    await heading(member).filter({ hasText: "#lobby › plans" }).waitFor();
    assert.equal(await messageBox(member).inputValue(), "Half a thought", "a reload keeps the draft");
    // Sent, it is gone.
    await messageBox(member).press("Control+Enter");
    await articles(member).filter({ hasText: "Half a thought" }).waitFor();
    await member.reload();
    await heading(member).filter({ hasText: "#lobby › plans" }).waitFor();
    assert.equal(await messageBox(member).inputValue(), "");
    await member.context().close();
  });

  test("9. reconnecting clears 'Cannot reach the server.'; the page's icon; '1 subscriber'; the README's menu names; unread count in the title", async () => {
    const member = await signedIn(server.fixtures.member);
    const context = member.context();
    await context.setOffline(true);
    await member.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor();
    await go(member, `#narrow/channel/${generalId}-general`);
    const alert = member.getByRole("alert").filter({ hasText: "Cannot reach the server." });
    await alert.waitFor();
    await context.setOffline(false);
    await alert.waitFor({ state: "detached" });

    // The page's icon (inline in index.html; with the unread count drawn on it while anything is unread) is an image the browser loads.
    const href = await member.locator("link[rel=icon]").getAttribute("href");
    assert.match(href ?? "", /^data:image\/(svg\+xml|png)[,;]/);
    const loads = await member.evaluate(
      (src) =>
        new Promise((resolve) => {
          const img = new Image();
          img.addEventListener("load", () => resolve(img.naturalWidth > 0));
          img.addEventListener("error", () => resolve(false));
          img.src = src ?? "";
        }),
      href,
    );
    assert.equal(loads, true, "the icon loads");

    expectSuccess(await server.api.post(server.fixtures.admin, "/messages", { type: "stream", to: "lobby", topic: "count", content: "One more to read." }));
    await member.waitForFunction(() => /^\(\d+\) /.test(document.title));
    await context.close();

    const admin = await signedIn(server.fixtures.admin);
    await admin.getByRole("button", { name: "Settings" }).click();
    const dialog = admin.getByRole("dialog", { name: "Settings" });
    // Every "Settings > X" the README names is a screen of the dialog.
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const screens = [...readme.matchAll(/\*\*Settings > ([^*]+)\*\*/g)].map((m) => m[1]);
    assert.ok(screens.includes("Users"));
    const tabs = await dialog.getByRole("tab").allInnerTexts();
    for (const screen of screens.filter((s) => s !== "Invite people")) assert.ok(tabs.includes(screen), `README names Settings > ${screen}; the tabs are ${tabs.join(", ")}`);
    await dialog.getByRole("tab", { name: "Channels" }).click();
    const row = dialog.getByRole("listitem").filter({ has: admin.getByRole("button", { name: "Manage #elsewhere" }) });
    await row.getByText(/^\d+ subscribers?$/).waitFor();
    assert.equal(await row.getByText(/^\d+ subscribers?$/).innerText(), "2 subscribers");
    const solo = dialog.getByRole("listitem").filter({ has: admin.getByRole("button", { name: "Manage #archive room" }) });
    assert.equal(await solo.getByText(/^\d+ subscribers?$/).innerText(), "1 subscriber");
    await admin.context().close();
  });
});
