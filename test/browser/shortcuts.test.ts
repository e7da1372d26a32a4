/**
 * Upstream's keyboard shortcuts on messages in a real browser against a real server (SQLite):
 * `?` lists them; j/k and End move the selection; `e` edits the selected message (or the user's
 * last one; another's topic), `*` stars it, `:` opens the emoji picker for it, `m`
 * mutes or unmutes its topic, Shift+U marks unread from it. Found by role and name; every wait
 * is on a locator or a response.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { signIn } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

describe("keyboard shortcuts on messages in a browser (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let member: Page;
  const ids: Record<string, number> = {};

  const feed = () => member.getByRole("log", { name: "Messages" });
  const article = (text: string) => feed().getByRole("article").filter({ hasText: text });
  const selected = () => feed().locator("article[aria-current='true']");
  const sidebar = () => member.getByRole("navigation", { name: "Channels and conversations" });

  async function say(user: TestUser, content: string): Promise<void> {
    ids[content] = expectSuccess(await server.api.post(user, "/messages", { type: "stream", to: "lobby", topic: "talk", content })).id;
  }

  async function flags(content: string): Promise<string[]> {
    return expectSuccess(await server.api.get(server.fixtures.member, `/messages/${ids[content]}`)).message.flags;
  }

  /** Presses keys, then waits until the selected message is the one with `text`. */
  async function selectWith(keys: string[], text: string): Promise<void> {
    for (const key of keys) await member.keyboard.press(key);
    await selected().filter({ hasText: text }).waitFor();
  }

  before(async () => {
    const { fixtures, api } = server;
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals: [fixtures.owner.email, fixtures.member.email] }));
    await say(fixtures.owner, "Owner says hi");
    await say(fixtures.member, "Member reply");
    await say(fixtures.owner, "Owner again");
    ({ page: member } = await suite.open());
    await signIn(member, server.url, fixtures.member);
    await sidebar().getByRole("link", { name: /^lobby(, \d+ unread)?$/ }).click();
    await article("Owner again").and(member.locator("article:not(.unread)")).waitFor();
    await sidebar().getByRole("link", { name: "lobby", exact: true }).waitFor();
    // The shortcuts act outside text fields.
    await member.getByRole("textbox", { name: "Message", exact: true }).blur();
  });


  test("? lists the shortcuts, Esc closes the list", async () => {
    await member.keyboard.press("?");
    const dialog = member.getByRole("dialog", { name: "Keyboard shortcuts" });
    for (const does of ["Edit the selected message (or your last one)", "Star or unstar the selected message", "React to the selected message with an emoji", "Mute or unmute the selected message's topic", "Mark as unread from the selected message"]) {
      await dialog.getByRole("row", { name: new RegExp(does.replace(/[()]/g, "\\$&")) }).waitFor();
    }
    assert.deepEqual(await dialog.getByRole("row", { name: /Mark as unread/ }).locator("kbd").allInnerTexts(), ["Shift", "U"]);
    await member.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
  });

  test("e edits the selected message, or one's last message, and another's topic", async () => {
    await selectWith(["End", "k"], "Member reply");
    await member.keyboard.press("e");
    // While edited, the message shows the editor (with its source) in place of its text.
    const editor = feed().getByRole("textbox", { name: "Edit message" });
    await editor.and(member.locator(":focus")).waitFor();
    assert.equal(await editor.inputValue(), "Member reply");
    assert.equal(await selected().getByRole("form", { name: "Edit message" }).count(), 1);
    await member.keyboard.press("Escape");
    await editor.waitFor({ state: "detached" });

    // Another's message: its topic only, which members may change.
    await selectWith(["j"], "Owner again");
    await member.keyboard.press("e");
    const topic = feed().getByRole("textbox", { name: "Edit topic" });
    await topic.waitFor();
    assert.equal(await topic.inputValue(), "talk");
    assert.equal(await editor.count(), 0);
    await topic.press("Escape");
    await topic.waitFor({ state: "detached" });

    // With nothing selected, `e` edits the user's last message.
    await member.keyboard.press("Escape");
    await selected().waitFor({ state: "detached" });
    await member.keyboard.press("e");
    await editor.and(member.locator(":focus")).waitFor();
    assert.equal(await editor.inputValue(), "Member reply");
    await member.keyboard.press("Escape");
    await editor.waitFor({ state: "detached" });
  });

  test("* stars and unstars the selected message", async () => {
    await selectWith(["End"], "Owner again");
    await member.keyboard.press("*");
    await article("Owner again").getByTitle("Starred").waitFor();
    assert.ok((await flags("Owner again")).includes("starred"));
    await member.keyboard.press("*");
    await article("Owner again").getByTitle("Starred").waitFor({ state: "detached" });
  });

  test(": opens the emoji picker for the selected message", async () => {
    await selectWith(["End", "k", "k"], "Owner says hi");
    await member.keyboard.press(":");
    const picker = member.getByRole("dialog", { name: "Add emoji reaction" });
    const search = picker.getByRole("searchbox", { name: "Search emoji" });
    await search.and(member.locator(":focus")).waitFor();
    assert.equal(await search.inputValue(), "", "the key itself is not typed");
    await search.fill("tada");
    // The first emoji search loads the server's emoji names (slow on a loaded machine).
    await picker.getByRole("button", { name: "tada", exact: true }).waitFor({ timeout: 45_000 });
    await search.press("Enter");
    await article("Owner says hi").getByRole("button", { name: "tada: 1, you reacted" }).waitFor();
  });

  test("m mutes and unmutes the selected message's topic", async () => {
    await selectWith(["End"], "Owner again");
    await member.keyboard.press("m");
    const mark = feed().getByRole("img", { name: "Muted topic" }).first();
    await mark.waitFor();
    await member.keyboard.press("m");
    await mark.waitFor({ state: "detached" });
  });

  test("Shift+U marks unread from the selected message onward", async () => {
    await selectWith(["End", "k"], "Member reply");
    await member.keyboard.press("Shift+U");
    await sidebar().getByRole("link", { name: "lobby, 2 unread" }).waitFor();
    assert.ok((await flags("Owner says hi")).includes("read"));
    assert.ok(!(await flags("Member reply")).includes("read"));
    assert.ok(!(await flags("Owner again")).includes("read"));
  });
});
