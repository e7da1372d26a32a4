/**
 * The compose box's tools in a real browser against a real server (SQLite), issue 39's Compose
 * items: the preview (POST /messages/render), the formatting toolbar and its keys, drafts saved
 * on the server (a second browser's Drafts view lists and restores them, live; the setting
 * turned off and on), scheduled messages (scheduled, listed, edited, delivered by the server's
 * worker on its test clock, and cancelled), and saved snippets (created, inserted, edited,
 * deleted). Found by role and name; every wait is on a locator, a response or a page function,
 * never a fixed sleep.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { signIn } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";

describe("web app: the compose box's tools (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let lobbyId: number;

  const messageBox = (page: Page) => page.getByRole("textbox", { name: "Message", exact: true });
  const tools = (page: Page) => page.getByRole("toolbar", { name: "Formatting and compose tools" });
  const heading = (page: Page) => page.getByRole("banner").getByRole("heading", { level: 1 });
  const articles = (page: Page) => page.getByRole("log", { name: "Messages" }).getByRole("article");

  async function memberPage(): Promise<Page> {
    const { page } = await suite.open();
    await signIn(page, server.url, server.fixtures.member);
    return page;
  }

  /** Opens a #lobby topic and waits for the compose box to be addressed to it. */
  async function openTopic(page: Page, topic: string): Promise<void> {
    await page.evaluate(([id, t]) => (location.hash = `#narrow/channel/${id}-lobby/topic/${t}`), [lobbyId, topic] as const);
    await heading(page).filter({ hasText: `#lobby › ${topic}` }).waitFor();
    await hasValue(page, page.getByRole("textbox", { name: "Topic" }), topic);
  }

  /** Waits until a text box holds exactly `value`. */
  async function hasValue(page: Page, box: Locator, value: string): Promise<void> {
    const handle = await box.elementHandle();
    await page.waitForFunction(([el, v]) => (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) && el.value === v, [handle, value] as const);
  }

  /** Selects [start, end) of the compose box's text, as a user's drag would. */
  async function select(page: Page, start: number, end: number): Promise<void> {
    await messageBox(page).evaluate((el, [s, e]) => {
      if (!(el instanceof HTMLTextAreaElement)) return;
      el.focus();
      el.setSelectionRange(s, e);
    }, [start, end] as const);
  }

  before(async () => {
    const { fixtures, api } = server;
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals: [fixtures.owner.email, fixtures.member.email] }));
    lobbyId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "lobby" })).stream_id;
  });

  test("the preview shows the server's rendering, and Exit preview goes back to the text", async () => {
    const page = await memberPage();
    await openTopic(page, "preview");
    await messageBox(page).fill("Some **bold** words and `code`");
    await tools(page).getByRole("button", { name: "Preview", exact: true }).click();
    const shown = page.getByRole("region", { name: "Message preview" });
    await shown.locator("strong", { hasText: "bold" }).waitFor();
    assert.equal(await shown.innerHTML(), "<p>Some <strong>bold</strong> words and <code>code</code></p>");
    assert.equal(await messageBox(page).isHidden(), true, "the text box gives way to the preview");
    await tools(page).getByRole("button", { name: "Exit preview" }).click();
    await messageBox(page).waitFor();
    assert.equal(await messageBox(page).inputValue(), "Some **bold** words and `code`");
    assert.equal(await shown.count(), 0);
    await page.context().close();
  });

  test("the toolbar and Ctrl+B / Ctrl+I wrap the selection (and unwrap it), lists take whole lines", async () => {
    const page = await memberPage();
    await openTopic(page, "formatting");
    const box = messageBox(page);
    await box.fill("make this loud");
    await select(page, 10, 14);
    await tools(page).getByRole("button", { name: /^Bold/ }).click();
    await hasValue(page, box, "make this **loud**");
    assert.deepEqual(await box.evaluate((el) => (el instanceof HTMLTextAreaElement ? [el.selectionStart, el.selectionEnd] : [])), [12, 16], "the word stays selected");
    await box.press("Control+i");
    await hasValue(page, box, "make this ***loud***");
    await box.press("Control+b");
    await hasValue(page, box, "make this *loud*");

    await box.fill("see the docs");
    await select(page, 8, 12);
    await tools(page).getByRole("button", { name: /^Link/ }).click();
    await hasValue(page, box, "see the [docs](url)");
    await page.keyboard.type("https://example.com/docs");
    await hasValue(page, box, "see the [docs](https://example.com/docs)");

    await box.fill("milk\neggs");
    await select(page, 0, 9);
    await tools(page).getByRole("button", { name: "Bulleted list" }).click();
    await hasValue(page, box, "- milk\n- eggs");
    await tools(page).getByRole("button", { name: "Numbered list" }).click();
    await hasValue(page, box, "1. milk\n2. eggs");
    await tools(page).getByRole("button", { name: "Quote" }).click();
    await hasValue(page, box, "```quote\n1. milk\n2. eggs\n```");

    // The emoji button inserts the picked emoji's name at the caret.
    await box.fill("done");
    await select(page, 4, 4);
    await tools(page).getByRole("button", { name: "Add emoji", exact: true }).click();
    const picker = page.getByRole("dialog", { name: "Add emoji", exact: true });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("tada");
    await picker.getByRole("group", { name: "Emoji" }).getByRole("button").first().waitFor();
    await picker.getByRole("searchbox", { name: "Search emoji" }).press("Enter");
    await hasValue(page, box, "done :tada: ");
    await page.context().close();
  });

  test("a draft saved on the server shows in a second browser's Drafts view, live, and restores there; synchronization off keeps it in the browser, on sends it back", async () => {
    // The earlier tests' pages may have saved their unsent text as drafts before they closed: start from none.
    const { member } = server.fixtures;
    for (const d of expectSuccess(await server.api.get(member, "/drafts")).drafts as Array<{ id: number }>) expectSuccess(await server.api.delete(member, `/drafts/${d.id}`));
    const first = await memberPage();
    await openTopic(first, "plans");
    const saved = first.waitForResponse((r) => r.url().endsWith("/json/drafts") && r.request().method() === "POST");
    await messageBox(first).fill("A draft kept on the server");
    assert.equal((await saved).status(), 200);
    const stored = expectSuccess(await server.api.get(server.fixtures.member, "/drafts")).drafts;
    assert.deepEqual(stored.map((d: { type: string; to: number[]; topic: string; content: string }) => [d.type, d.to, d.topic, d.content]), [["stream", [lobbyId], "plans", "A draft kept on the server"]]);

    const second = await memberPage();
    await tools(second).getByRole("button", { name: "Drafts", exact: true }).click();
    const dialog = second.getByRole("dialog", { name: "Drafts" });
    const kept = dialog.getByRole("listitem").filter({ hasText: "A draft kept on the server" });
    await kept.filter({ hasText: "#lobby › plans" }).waitFor();

    // Written meanwhile in the first browser: it comes to the open view by the server's event.
    await openTopic(first, "later");
    await messageBox(first).fill("Another thought");
    const live = dialog.getByRole("listitem").filter({ hasText: "Another thought" });
    await live.waitFor();
    await live.getByRole("button", { name: "Delete" }).click();
    await live.waitFor({ state: "detached" });
    await second.waitForFunction(async () => {
      const res = await fetch("/json/drafts");
      const body: { drafts: Array<{ content: string }> } = await res.json();
      return body.drafts.length === 1;
    });

    await kept.getByRole("button", { name: "Restore" }).click();
    await dialog.waitFor({ state: "detached" });
    await heading(second).filter({ hasText: "#lobby › plans" }).waitFor();
    await hasValue(second, messageBox(second), "A draft kept on the server");

    // The first browser lost its deleted draft with the server's event: a reload keeps it gone.
    await first.reload();
    await heading(first).filter({ hasText: "#lobby › later" }).waitFor();
    assert.equal(await messageBox(first).inputValue(), "");
    await first.context().close();

    // Synchronization off: the server drops its drafts, the browser keeps its own; on again, they go back.
    await tools(second).getByRole("button", { name: "Drafts", exact: true }).click();
    const sync = dialog.getByRole("checkbox", { name: /Save drafts on the server/ });
    // The box shows the setting as saved: it changes once the server has it.
    await sync.click();
    await dialog.getByRole("checkbox", { name: /Save drafts on the server/, checked: false }).waitFor();
    await second.waitForFunction(() => fetch("/json/drafts").then((res) => res.status === 400));
    assert.equal((await server.api.get(server.fixtures.member, "/drafts")).body.msg, "User has disabled synchronizing drafts.");
    await kept.waitFor();
    await sync.click();
    await dialog.getByRole("checkbox", { name: /Save drafts on the server/, checked: true }).waitFor();
    await second.waitForFunction(async () => {
      const res = await fetch("/json/drafts");
      const body: { drafts?: Array<{ content: string }> } = await res.json();
      return body.drafts?.length === 1 && body.drafts[0].content === "A draft kept on the server";
    });
    await second.context().close();
  });

  test("scheduled messages: send later, listed, edited, delivered by the server's worker, cancelled", async () => {
    const page = await memberPage();
    await openTopic(page, "schedule");
    // A custom time seven minutes ahead (the browser's zone is UTC).
    const due = Math.floor(Date.now() / 60_000 + 7) * 60;
    await messageBox(page).fill("See you **later**");
    await page.getByRole("button", { name: "Send later" }).click();
    const menu = page.getByRole("dialog", { name: "Schedule message" });
    await menu.getByLabel("Custom time").fill(new Date(due * 1000).toISOString().slice(0, 16));
    await menu.getByRole("button", { name: "Schedule", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Your message is scheduled for" }).waitFor();
    await hasValue(page, messageBox(page), "");

    // A second one, for one of the suggested times.
    await messageBox(page).fill("Edit me later");
    await page.getByRole("button", { name: "Send later" }).click();
    await menu.getByRole("button", { name: /^Tomorrow at/ }).first().click();
    await hasValue(page, messageBox(page), "");

    await page.getByRole("status").getByRole("button", { name: "View scheduled messages" }).click();
    const dialog = page.getByRole("dialog", { name: "Scheduled messages" });
    const first = dialog.getByRole("listitem").filter({ hasText: "See you later" });
    await first.locator("strong", { hasText: "later" }).waitFor();
    const second = dialog.getByRole("listitem").filter({ hasText: "Edit me later" });
    await second.getByRole("button", { name: "Edit" }).click();
    const form = dialog.getByRole("form", { name: "Edit scheduled message" });
    assert.equal(await form.getByLabel("Scheduled message text").inputValue(), "Edit me later");
    await form.getByLabel("Scheduled message text").fill("Edited for the day after");
    const dayAfter = Math.floor(Date.now() / 60_000) * 60 + 2 * 86_400;
    await form.getByLabel("Delivery time").fill(new Date(dayAfter * 1000).toISOString().slice(0, 16));
    await form.getByRole("button", { name: "Save" }).click();
    const edited = dialog.getByRole("listitem").filter({ hasText: "Edited for the day after" });
    await edited.getByRole("button", { name: "Cancel message" }).waitFor();
    const listed = expectSuccess(await server.api.get(server.fixtures.member, "/scheduled_messages")).scheduled_messages;
    assert.deepEqual(
      listed.map((m: { content: string; scheduled_delivery_timestamp: number; topic: string }) => [m.content, m.scheduled_delivery_timestamp, m.topic]),
      [["See you **later**", due, "schedule"], ["Edited for the day after", dayAfter, "schedule"]],
    );

    // The server's clock (a test clock, standing still) moves to the first one's time: its worker sends it.
    const serverNow = expectSuccess(await server.api.post(null, "/__test/advance_clock", { seconds: 0 }, { validate: false })).now_ms;
    await server.advanceClock(due - Math.floor(serverNow / 1000));
    await articles(page).filter({ hasText: "See you later" }).locator("strong").waitFor();
    await first.waitFor({ state: "detached" });

    await edited.getByRole("button", { name: "Cancel message" }).click();
    await dialog.getByText("No scheduled messages.").waitFor();
    assert.deepEqual(expectSuccess(await server.api.get(server.fixtures.member, "/scheduled_messages")).scheduled_messages, []);
    await page.context().close();
  });

  test("saved snippets: created from the compose box, inserted at the caret, edited and deleted", async () => {
    const page = await memberPage();
    await openTopic(page, "snippets");
    await messageBox(page).fill("Thanks for the report!");
    const open = () => tools(page).getByRole("button", { name: "Saved snippets" }).click();
    const list = page.getByRole("dialog", { name: "Saved snippets" });
    await open();
    await list.getByText("No saved snippets yet.").waitFor();
    await list.getByRole("button", { name: "Add a new saved snippet" }).click();
    const editor = page.getByRole("dialog", { name: "Add a new saved snippet" });
    assert.equal(await editor.getByLabel("Snippet text").inputValue(), "Thanks for the report!", "it starts with the compose box's text");
    await editor.getByLabel("Title").fill("Thanks");
    await editor.getByLabel("Snippet text").fill("Thanks, we are on it.");
    await editor.getByRole("button", { name: "Save snippet" }).click();
    await editor.waitFor({ state: "detached" });

    await messageBox(page).fill("Hi. ");
    await select(page, 4, 4);
    await open();
    await list.getByRole("button", { name: "Insert snippet: Thanks" }).click();
    await hasValue(page, messageBox(page), "Hi. Thanks, we are on it.");

    await open();
    await list.getByRole("button", { name: "Edit snippet: Thanks" }).click();
    const edit = page.getByRole("dialog", { name: "Edit saved snippet" });
    await edit.getByLabel("Title").fill("Thanks (short)");
    await edit.getByRole("button", { name: "Save snippet" }).click();
    await edit.waitFor({ state: "detached" });
    const snippets = expectSuccess(await server.api.get(server.fixtures.member, "/saved_snippets")).saved_snippets;
    assert.deepEqual(snippets.map((s: { title: string; content: string }) => [s.title, s.content]), [["Thanks (short)", "Thanks, we are on it."]]);

    await open();
    await list.getByRole("button", { name: "Delete snippet: Thanks (short)" }).click();
    await list.getByText("No saved snippets yet.").waitFor();
    assert.deepEqual(expectSuccess(await server.api.get(server.fixtures.member, "/saved_snippets")).saved_snippets, []);
    await page.context().close();
  });
});
