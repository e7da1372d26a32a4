/**
 * The web app's message actions and richer compose box in a real browser against a real server
 * (SQLite): emoji reactions (picker, toggling, live to a second user), editing and deleting
 * through the "Message actions" menu, quote-and-reply, uploading files (picker and drop), and
 * the `@` / `#` / `:` autocomplete. Everything is found by its accessible role and name; every
 * wait is on a locator or a response, never a fixed sleep.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { PNG, postFiles } from "../api/uploads-support.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

describe("message actions and compose in a browser (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  /** The owner's and the member's signed-in pages, both on #lobby. */
  let owner: Page;
  let member: Page;

  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });
  const article = (page: Page, text: string) => feed(page).getByRole("article").filter({ hasText: text });
  const messageBox = (page: Page) => page.getByRole("textbox", { name: "Message", exact: true });

  async function signIn(page: Page, user: TestUser): Promise<void> {
    await page.goto(server.url);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await messageBox(page).waitFor();
    await page.getByRole("navigation").getByRole("link", { name: "lobby", exact: true }).click();
    await page.getByRole("heading", { name: "#lobby" }).waitFor();
  }

  async function say(user: TestUser, content: string, topic = "chat"): Promise<number> {
    return expectSuccess(await server.api.post(user, "/messages", { type: "stream", to: "lobby", topic, content })).id;
  }

  /** Opens a message's actions menu and picks an item. */
  async function menuAction(page: Page, message: Locator, item: string): Promise<void> {
    await message.hover();
    await message.getByRole("button", { name: "Message actions" }).click();
    await page.getByRole("menu", { name: "Message actions" }).getByRole("menuitem", { name: item }).click();
  }

  /** Sends what the compose box holds with Ctrl+Enter and waits for the box to empty. */
  async function sendComposed(page: Page): Promise<void> {
    await messageBox(page).press("Control+Enter");
    await messageBox(page).and(page.locator(":placeholder-shown")).waitFor();
  }

  /** Waits until a text box's value matches a pattern. */
  async function valueMatches(page: Page, box: Locator, pattern: RegExp): Promise<void> {
    const handle = await box.elementHandle();
    await page.waitForFunction(([el, source]) => el instanceof HTMLTextAreaElement && new RegExp(source).test(el.value), [handle, pattern.source] as const);
  }

  /** Gives the compose box a file as a user's drop or paste does (`content`: text, or a size in bytes). */
  async function giveFile(box: Locator, how: "drop" | "paste", name: string, content: string | number): Promise<void> {
    await box.evaluate(
      (el, [kind, fileName, body]) => {
        const data = new DataTransfer();
        data.items.add(new File([typeof body === "number" ? new Uint8Array(body) : body], fileName, { type: "text/plain" }));
        const init = { bubbles: true, cancelable: true };
        el.dispatchEvent(kind === "drop" ? new DragEvent("drop", { ...init, dataTransfer: data }) : new ClipboardEvent("paste", { ...init, clipboardData: data }));
      },
      [how, name, content] as const,
    );
  }

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.member.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals }));
    ({ page: owner } = await suite.open());
    ({ page: member } = await suite.open());
    await Promise.all([signIn(owner, fixtures.owner), signIn(member, fixtures.member)]);
  });


  test("reacting through the emoji picker, live to another user, and taking the reaction back", async () => {
    const { fixtures, api } = server;
    const id = await say(fixtures.member, "Release is out!");
    const mine = article(owner, "Release is out!");
    await mine.hover();
    await mine.getByRole("button", { name: "Add emoji reaction" }).click();
    const picker = owner.getByRole("dialog", { name: "Add emoji reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("tad");
    await picker.getByRole("button", { name: "tada", exact: true }).click();
    await picker.waitFor({ state: "detached" });
    await mine.getByRole("button", { name: "tada: 1, you reacted" }).waitFor();

    const theirs = article(member, "Release is out!");
    await theirs.getByRole("button", { name: "tada: 1", exact: true }).click();
    await owner.getByRole("button", { name: "tada: 2, you reacted" }).waitFor();
    await theirs.getByRole("button", { name: "tada: 2, you reacted" }).waitFor();

    // Un-react by clicking one's own reaction.
    await mine.getByRole("button", { name: "tada: 2, you reacted" }).click();
    await theirs.getByRole("button", { name: "tada: 1, you reacted" }).waitFor();
    await mine.getByRole("button", { name: "tada: 1", exact: true }).waitFor();
    const res = expectSuccess(await api.get(fixtures.owner, `/messages/${id}`));
    assert.deepEqual(
      res.message.reactions.map((r: { user_id: number; emoji_name: string }) => [r.user_id, r.emoji_name]),
      [[fixtures.member.id, "tada"]],
    );
  });

  test("a custom emoji from the picker shows as its image", async () => {
    const { fixtures } = server;
    expectSuccess(await postFiles(server, fixtures.owner, "/realm/emoji/team_logo", [{ name: "logo.png", data: PNG, type: "image/png" }]));
    await say(fixtures.member, "Custom emoji time");
    const mine = article(owner, "Custom emoji time");
    await mine.hover();
    await mine.getByRole("button", { name: "Message actions" }).click();
    await owner.getByRole("menuitem", { name: "Add emoji reaction" }).click();
    const picker = owner.getByRole("dialog", { name: "Add emoji reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("team");
    await picker.getByRole("button", { name: "team logo", exact: true }).click();
    const reaction = article(member, "Custom emoji time").getByRole("button", { name: "team logo: 1", exact: true });
    await reaction.waitFor();
    const image = reaction.locator("img");
    await image.waitFor();
    assert.match((await image.getAttribute("src")) ?? "", /\/user_avatars\/\d+\/emoji\/images\//);
  });

  test("editing one's own message: another user sees the new content and the edited mark live", async () => {
    await messageBox(owner).fill("Meeting at 10");
    await sendComposed(owner);
    const mine = article(owner, "Meeting at 10");
    await mine.waitFor();
    await menuAction(owner, mine, "Edit message");
    // While edited, the message shows the editor in place of its text.
    const form = feed(owner).getByRole("form", { name: "Edit message" });
    const editor = form.getByRole("textbox", { name: "Edit message" });
    await editor.and(owner.locator(":enabled")).waitFor();
    assert.equal(await editor.inputValue(), "Meeting at 10", "the editor holds the Markdown source");
    await editor.fill("Meeting at **11**");
    await form.getByRole("button", { name: "Save" }).click();
    const edited = article(member, "Meeting at 11");
    await edited.getByText("(edited)").waitFor();
    assert.equal(await edited.locator("strong").innerText(), "11");
    await article(owner, "Meeting at 11").getByText("(edited)").waitFor();
    assert.equal(await article(owner, "Meeting at 10").count(), 0);
  });

  test("a member is not offered editing or deleting someone else's message", async () => {
    const theirs = article(member, "Meeting at 11");
    await theirs.hover();
    await theirs.getByRole("button", { name: "Message actions" }).click();
    const menu = member.getByRole("menu", { name: "Message actions" });
    await menu.getByRole("menuitem", { name: "Quote and reply" }).waitFor();
    assert.equal(await menu.getByRole("menuitem", { name: "Edit message" }).count(), 0);
    assert.equal(await menu.getByRole("menuitem", { name: "Delete message" }).count(), 0);
    await member.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    assert.equal(await theirs.getByRole("button", { name: "Message actions" }).evaluate((el) => el === document.activeElement), true, "Esc gives the focus back");
  });

  test("deleting one's own message after confirming", async () => {
    const id = await say(server.fixtures.owner, "Oops, wrong channel");
    const mine = article(owner, "Oops, wrong channel");
    await article(member, "Oops, wrong channel").waitFor();
    await menuAction(owner, mine, "Delete message");
    const dialog = owner.getByRole("dialog", { name: "Delete message?" });
    await dialog.getByRole("button", { name: "Delete" }).click();
    await mine.waitFor({ state: "detached" });
    await article(member, "Oops, wrong channel").waitFor({ state: "detached" });
    const res = await server.api.get(server.fixtures.owner, `/messages/${id}`);
    assert.equal(res.status, 400);
  });

  test("quote and reply inserts upstream's quote block and addresses the conversation", async () => {
    const { fixtures } = server;
    const id = await say(fixtures.member, "Can someone review *this*?", "reviews");
    const theirs = article(owner, "Can someone review this?");
    const loaded = owner.waitForResponse((res) => res.url().includes(`/json/messages/${id}?`) && res.status() === 200);
    await menuAction(owner, theirs, "Quote and reply");
    await loaded;
    const box = messageBox(owner);
    await box.and(owner.locator(":focus")).waitFor();
    assert.equal(await owner.getByRole("textbox", { name: "Topic", exact: true }).inputValue(), "reviews");
    const link = `${server.url}/#narrow/channel/`;
    const text = await box.inputValue();
    assert.ok(text.startsWith(`@_**${fixtures.member.fullName}|${fixtures.member.id}** [said](${link}`), text);
    assert.ok(text.includes(`/topic/reviews/near/${id}):\n\`\`\`quote\nCan someone review *this*?\n\`\`\`\n`), text);
    await box.press("End");
    await box.pressSequentially("On it.");
    await sendComposed(owner);
    const reply = article(member, "On it.");
    await reply.locator("blockquote").getByText("Can someone review this?").waitFor();
    assert.equal(await reply.getByRole("link", { name: "said" }).count(), 1);
  });

  test("uploading an image by the picker inserts its link, and the sent message shows the image", async () => {
    const chooser = owner.waitForEvent("filechooser");
    await owner.getByRole("button", { name: "Upload files" }).click();
    const uploaded = owner.waitForResponse((res) => res.url().endsWith("/json/user_uploads") && res.status() === 200);
    await (await chooser).setFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
    await uploaded;
    await valueMatches(owner, messageBox(owner), /^\[dot\.png\]\(\/user_uploads\/\d+\/[^)]+\/dot\.png\) $/);
    await sendComposed(owner);
    const sent = article(member, "dot.png");
    // The link as written, and the inline preview the server renders for an image.
    await sent.getByRole("link", { name: "dot.png" }).first().waitFor();
    const image = sent.locator(".message_inline_image img");
    await image.waitFor();
    await image.evaluate((img: HTMLImageElement) => (img.complete ? undefined : new Promise((resolve) => img.addEventListener("load", resolve))));
    assert.ok(await image.evaluate((img: HTMLImageElement) => img.naturalWidth > 0), "the image loads");
  });

  test("dropping or pasting a file on the compose box uploads it; a file over the limit is refused", async () => {
    const box = messageBox(owner);
    await box.fill("Notes: ");
    const uploaded = owner.waitForResponse((res) => res.url().endsWith("/json/user_uploads") && res.status() === 200);
    await giveFile(box, "drop", "minutes.txt", "minutes");
    await uploaded;
    await valueMatches(owner, box, /^Notes: \[minutes\.txt\]\(\/user_uploads\/[^)]+\) $/);

    const pasted = owner.waitForResponse((res) => res.url().endsWith("/json/user_uploads") && res.status() === 200);
    await giveFile(box, "paste", "agenda.txt", "agenda");
    await pasted;
    // Each link goes where the caret was; the caret stays after the first one's space.
    await valueMatches(owner, box, /^Notes: \[minutes\.txt\]\([^)]+\) \[agenda\.txt\]\(\/user_uploads\/[^)]+\) $/);

    // A file over the server's limit (max_file_upload_size_mib) is refused with a message.
    await giveFile(box, "drop", "huge.bin", 26 * 1024 * 1024);
    const alert = owner.getByRole("form", { name: "Compose" }).getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /huge\.bin is larger than the 25 MiB/);
    await box.fill("");
  });

  test("autocomplete: a user mention picked with Enter renders as a mention; channels and emoji with Tab", async () => {
    const box = messageBox(owner);
    await box.click();
    await box.pressSequentially("Thanks @max");
    const list = owner.getByRole("listbox", { name: "Suggestions" });
    const option = list.getByRole("option", { name: new RegExp(server.fixtures.member.fullName) });
    await option.waitFor();
    assert.equal(await option.getAttribute("aria-selected"), "true");
    await box.press("Enter");
    await list.waitFor({ state: "detached" });
    assert.equal(await box.inputValue(), `Thanks @**${server.fixtures.member.fullName}** `);

    await box.pressSequentially("see #lob");
    await list.getByRole("option", { name: /lobby/ }).waitFor();
    await box.press("Tab");
    await box.pressSequentially(":tad");
    // The first ":" fetches the emoji names (GET server_emoji_data_url, built from emoji-datasource
    // on the server's first request): under a full CI run on two cores that took over 15 s.
    await list.getByRole("option", { name: /:tada:/ }).waitFor({ timeout: 45_000 });
    await box.press("Tab");
    assert.equal(await box.inputValue(), `Thanks @**${server.fixtures.member.fullName}** see #**lobby** :tada: `);

    // Esc closes the list and leaves the text alone.
    await box.pressSequentially("@ow");
    await list.waitFor();
    await box.press("Escape");
    await list.waitFor({ state: "detached" });
    await box.press("Backspace");
    await box.press("Backspace");
    await box.press("Backspace");
    await sendComposed(owner);
    const sent = article(member, "Thanks");
    const mention = sent.locator(".user-mention");
    await mention.waitFor();
    assert.equal(await mention.innerText(), `@${server.fixtures.member.fullName}`);
    await sent.getByRole("link", { name: "#lobby" }).waitFor();
  });
});
