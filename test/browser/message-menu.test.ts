/**
 * The message actions menu in a real browser against a real server (SQLite), as upstream's:
 * copying a message's link (a channel's and a direct message's form, which opens the
 * conversation), viewing the Markdown source, moving a topic to another channel, the server
 * refusing a member's move once the organization forbids it (and the menu no longer offering
 * it), marking unread from a message onward (which stays unread while the view is open), the
 * edit history with who changed what and when, and read receipts, hidden until the
 * organization turns them on. Found by role and name; every wait is on a locator or a response.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { signIn as signInAs } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

describe("the message actions menu in a browser (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let owner: Page;
  let ownerContext: BrowserContext;
  let member: Page;
  let lobbyId: number;
  let annexId: number;

  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });
  const article = (page: Page, text: string) => feed(page).getByRole("article").filter({ hasText: text });
  const sidebar = (page: Page) => page.getByRole("navigation", { name: "Channels and conversations" });
  const menu = (page: Page) => page.getByRole("menu", { name: "Message actions" });

  async function say(user: TestUser, content: string, topic: string, to = "lobby"): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "stream", to, topic, content })).id;
  }

  async function openMenu(page: Page, message: Locator): Promise<Locator> {
    await message.hover();
    await message.getByRole("button", { name: "Message actions" }).click();
    await menu(page).waitFor();
    return menu(page);
  }

  async function menuAction(page: Page, message: Locator, item: string): Promise<void> {
    await (await openMenu(page, message)).getByRole("menuitem", { name: item }).click();
  }

  async function closeMenu(page: Page): Promise<void> {
    await page.keyboard.press("Escape");
    await menu(page).waitFor({ state: "detached" });
  }

  async function showLobby(page: Page): Promise<void> {
    await sidebar(page).getByRole("link", { name: /^lobby(, \d+ unread)?$/ }).click();
    await page.getByRole("banner").getByRole("heading", { name: "#lobby" }).waitFor();
  }

  async function signIn(page: Page, user: TestUser): Promise<void> {
    await signInAs(page, server.url, user);
    await showLobby(page);
  }

  async function groupId(name: string): Promise<number> {
    const groups = expectSuccess(await server.api.get(server.fixtures.owner, "/user_groups")).user_groups as Array<{ id: number; name: string }>;
    const found = groups.find((g) => g.name === name);
    assert.ok(found, `no group ${name}`);
    return found.id;
  }

  before(async () => {
    const { fixtures, api } = server;
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals: [fixtures.owner.email, fixtures.member.email] }));
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "annex" }] }));
    lobbyId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "lobby" })).stream_id;
    annexId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "annex" })).stream_id;
    ({ page: owner, context: ownerContext } = await suite.open());
    await ownerContext.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    ({ page: member } = await suite.open());
    await Promise.all([signIn(owner, fixtures.owner), signIn(member, fixtures.member)]);
  });


  test("copy link to message: the topic's link, and a direct message's upstream form, which opens the conversation", async () => {
    const { fixtures, api } = server;
    const id = await say(fixtures.owner, "Link me please", "links here");
    await menuAction(owner, article(owner, "Link me please"), "Copy link to message");
    await owner.getByRole("status").filter({ hasText: "Copied link to message" }).waitFor();
    const clipboard = () => owner.evaluate(() => navigator.clipboard.readText());
    assert.equal(await clipboard(), `${server.url}/#narrow/channel/${lobbyId}-lobby/topic/links.20here/near/${id}`);

    const dmId = expectSuccess(await api.post(fixtures.member, "/messages", { type: "direct", to: JSON.stringify([fixtures.owner.id]), content: "A private hello" })).id;
    await owner.goto(`${server.url}/#narrow/dm/${fixtures.member.id}`);
    await menuAction(owner, article(owner, "A private hello"), "Copy link to message");
    const ids = [fixtures.owner.id, fixtures.member.id].sort((a, b) => a - b).join(",");
    const link = `${server.url}/#narrow/dm/${ids}-dm/near/${dmId}`;
    await owner.waitForFunction((expected) => navigator.clipboard.readText().then((text) => text === expected), link);

    // The link opens the conversation with the other participant.
    await showLobby(owner);
    await owner.goto(link);
    await owner.getByRole("banner").getByRole("heading", { name: fixtures.member.fullName }).waitFor();
    await article(owner, "A private hello").waitFor();
    await showLobby(owner);
  });

  test("view message source shows another user's Markdown", async () => {
    await say(server.fixtures.owner, "Some **bold** words and `code`", "sources");
    await menuAction(member, article(member, "Some bold words"), "View message source");
    const dialog = member.getByRole("dialog", { name: "Message source" });
    assert.equal(await dialog.getByLabel("Markdown source").innerText(), "Some **bold** words and `code`");
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "detached" });
  });

  test("moving a whole topic to another channel from its recipient bar", async () => {
    const { fixtures, api } = server;
    const first = await say(fixtures.member, "Moving part one", "to move");
    const second = await say(fixtures.member, "Moving part two", "to move");
    await article(owner, "Moving part two").waitFor();
    await feed(owner).getByRole("button", { name: "Topic actions for to move" }).first().click();
    await owner.getByRole("menu", { name: "Topic actions for to move" }).getByRole("menuitem", { name: "Move topic" }).click();
    const dialog = owner.getByRole("dialog", { name: "Move topic" });
    await dialog.getByLabel("Channel").selectOption({ label: "#annex" });
    await dialog.getByRole("textbox", { name: "Topic" }).fill("moved here");
    const moved = owner.waitForResponse((res) => res.url().includes(`/json/messages/${first}`) && res.request().method() === "PATCH");
    await dialog.getByRole("button", { name: "Move" }).click();
    assert.equal((await moved).status(), 200);
    await dialog.waitFor({ state: "detached" });
    // Both left #lobby for #annex > moved here.
    await article(owner, "Moving part one").waitFor({ state: "detached" });
    for (const id of [first, second]) {
      const { message } = expectSuccess(await api.get(fixtures.owner, `/messages/${id}`));
      assert.deepEqual([message.stream_id, message.subject], [annexId, "moved here"]);
    }
  });

  test("a member's move is refused by the server once the organization forbids it, and the menu stops offering it", async () => {
    const { fixtures, api } = server;
    const id = await say(fixtures.member, "My note to move", "perm");
    const mine = article(member, "My note to move");
    await menuAction(member, mine, "Move messages");
    const dialog = member.getByRole("dialog", { name: "Move messages" });
    await dialog.getByRole("textbox", { name: "Topic" }).fill("elsewhere");
    assert.equal(await dialog.getByLabel("Which messages").inputValue(), "change_later");
    await dialog.getByLabel("Which messages").selectOption({ label: "Move only this message" });
    // Meanwhile the owner lets nobody move messages.
    const nobody = await groupId("role:nobody");
    expectSuccess(await api.patch(fixtures.owner, "/realm", { can_move_messages_between_topics_group: JSON.stringify({ new: nobody }), can_move_messages_between_channels_group: JSON.stringify({ new: nobody }) }));
    await dialog.getByRole("button", { name: "Move" }).click();
    await dialog.getByRole("alert").filter({ hasText: "You don't have permission to edit this message" }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    assert.equal(expectSuccess(await api.get(fixtures.member, `/messages/${id}`)).message.subject, "perm");

    // The menu follows the organization's settings (the realm event): no more moving.
    const items = await openMenu(member, mine);
    await items.getByRole("menuitem", { name: "Edit message" }).waitFor();
    await items.getByRole("menuitem", { name: "Move messages" }).waitFor({ state: "detached" });
    await closeMenu(member);
    const everyone = await groupId("role:everyone");
    const members = await groupId("role:members");
    expectSuccess(await api.patch(fixtures.owner, "/realm", { can_move_messages_between_topics_group: JSON.stringify({ new: everyone }), can_move_messages_between_channels_group: JSON.stringify({ new: members }) }));
  });

  test("mark as unread from here: that message and the later ones, which stay unread while the view is open", async () => {
    const { fixtures, api } = server;
    await say(fixtures.owner, "Catch-up one", "catch up");
    const two = await say(fixtures.owner, "Catch-up two", "catch up");
    const three = await say(fixtures.owner, "Catch-up three", "catch up");
    const readClass = member.locator("article:not(.unread)");
    await article(member, "Catch-up three").and(readClass).waitFor();
    await sidebar(member).getByRole("link", { name: "lobby", exact: true }).waitFor();

    await menuAction(member, article(member, "Catch-up two"), "Mark as unread from here");
    await sidebar(member).getByRole("link", { name: "lobby, 2 unread" }).waitFor();
    // A new message shows up but is not marked read either: reading waits until the view is left.
    await say(fixtures.owner, "Catch-up four", "catch up");
    await article(member, "Catch-up four").waitFor();
    await sidebar(member).getByRole("link", { name: "lobby, 3 unread" }).waitFor();
    const flags = async (id: number) => expectSuccess(await api.get(fixtures.member, `/messages/${id}`)).message.flags as string[];
    assert.ok(!(await flags(two)).includes("read"));
    assert.ok(!(await flags(three)).includes("read"));

    // Coming back to the channel reads them again.
    await sidebar(member).getByRole("link", { name: /^Combined feed/ }).click();
    await showLobby(member);
    await sidebar(member).getByRole("link", { name: "lobby", exact: true }).waitFor();
  });

  test("edit history: each version with its content, its topic change, who and when", async () => {
    const { fixtures, api } = server;
    const id = await say(fixtures.owner, "Plan version one", "plans");
    expectSuccess(await api.patch(fixtures.owner, `/messages/${id}`, { content: "Plan version **two**" }));
    expectSuccess(await api.patch(fixtures.owner, `/messages/${id}`, { topic: "final plans", propagate_mode: "change_one" }));
    const theirs = article(member, "Plan version two");
    await theirs.getByText("(edited)").waitFor();
    await feed(member).getByRole("link", { name: "final plans" }).waitFor();
    await menuAction(member, theirs, "View edit history");
    const versions = member.getByRole("dialog", { name: "Message edit history" }).getByRole("list", { name: "Versions" }).getByRole("listitem");
    await versions.first().waitFor();
    assert.equal(await versions.count(), 3);
    const name = fixtures.owner.fullName;
    const original = versions.nth(0);
    assert.equal(await original.getAttribute("aria-label"), `Original message by ${name}`);
    await original.getByText("Plan version one").waitFor();
    const edited = versions.nth(1);
    assert.equal(await edited.getAttribute("aria-label"), `Edited by ${name}`);
    assert.equal(await edited.locator(".history-content strong").innerText(), "two");
    const moved = versions.nth(2);
    assert.equal(await moved.getAttribute("aria-label"), `Moved by ${name}`);
    await moved.getByText("Topic: plans → final plans").waitFor();
    assert.ok((await moved.locator("time").getAttribute("datetime"))?.startsWith(String(new Date().getUTCFullYear())));
    await member.keyboard.press("Escape");
    await member.getByRole("dialog", { name: "Message edit history" }).waitFor({ state: "detached" });
  });

  test("read receipts: hidden while the organization disables them, then the names of who read the message", async () => {
    const { fixtures, api } = server;
    await say(fixtures.owner, "Did you read this?", "receipts");
    await article(member, "Did you read this?").and(member.locator("article:not(.unread)")).waitFor();
    // An open menu follows the organization's settings (realm events): off, then on.
    const opened = await openMenu(owner, article(owner, "Did you read this?"));
    await opened.getByRole("menuitem", { name: "Copy link to message" }).waitFor();
    expectSuccess(await api.patch(fixtures.owner, "/realm", { enable_read_receipts: false }));
    await opened.getByRole("menuitem", { name: "View read receipts" }).waitFor({ state: "detached" });
    expectSuccess(await api.patch(fixtures.owner, "/realm", { enable_read_receipts: true }));
    await opened.getByRole("menuitem", { name: "View read receipts" }).click();
    const dialog = owner.getByRole("dialog", { name: "Read receipts" });
    const readers = dialog.getByRole("list", { name: "Read by" }).getByRole("listitem");
    await readers.first().waitFor();
    assert.deepEqual(await readers.allInnerTexts(), [fixtures.member.fullName]);
    await dialog.getByText("This message has been read by 1 person:").waitFor();
    await dialog.getByRole("button", { name: "Close" }).click();
  });
});
