/**
 * People in the web app, in a real browser against a real server (SQLite): a user's card (from
 * a sender's name, a sender's avatar, a mention and the user list) with their role, local time
 * and the organization's custom profile fields; its "Send direct message" and "View messages
 * sent"; a status set from one's own menu, seen live by another user in the user list and on
 * the card, then cleared; invisible mode, seen by another user as offline. Found by role and
 * name; every wait is on a locator, a response or a page function, never a fixed sleep.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { signIn } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

/** The time of day in `timeZone` as the browser (en-US, 12-hour) shows it, spaces made plain. */
function timeIn(timeZone: string, at: Date): string {
  return at.toLocaleTimeString("en-US", { timeZone, hour: "numeric", minute: "2-digit", hour12: true }).replace(/\s/g, " ");
}

describe("people: user cards, statuses and invisible mode (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let lobbyId: number;

  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });
  const article = (page: Page, text: string) => feed(page).getByRole("article").filter({ hasText: text });
  const heading = (page: Page) => page.getByRole("banner").getByRole("heading", { level: 1 });
  const userList = (page: Page) => page.getByRole("complementary", { name: "Users" });
  const card = (page: Page, name: string) => page.getByRole("dialog", { name });
  /** A fact of a card: the definition after the term `name`. */
  const fact = (page: Page, user: string, name: string) => card(page, user).locator(".user-card-fact").filter({ has: page.getByRole("term").filter({ hasText: name }) }).getByRole("definition");

  async function signedIn(user: TestUser): Promise<Page> {
    const { page } = await suite.open();
    await signIn(page, server.url, user);
    return page;
  }

  async function go(page: Page, hash: string): Promise<void> {
    await page.evaluate((h) => (location.hash = h), hash);
  }

  async function accountAction(page: Page, item: string): Promise<void> {
    await page.getByRole("button", { name: "Your account" }).click();
    await page.getByRole("menu", { name: "Your account" }).getByRole("menuitem", { name: item }).click();
  }

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.admin.email, fixtures.member.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals }));
    lobbyId = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: "lobby" })).stream_id;
    const field = async (params: Record<string, unknown>) => expectSuccess(await api.post(fixtures.owner, "/realm/profile_fields", params)).id as number;
    const pronouns = await field({ name: "Pronouns", field_type: 8 });
    const team = await field({ name: "Team", field_type: 3, field_data: { a: { text: "Platform", order: "1" }, b: { text: "Design", order: "2" } } });
    const birthday = await field({ name: "Birthday", field_type: 4 });
    const site = await field({ name: "Website", field_type: 5 });
    const mentor = await field({ name: "Mentor", field_type: 6 });
    const github = await field({ field_type: 7, field_data: { subtype: "github" } });
    await field({ name: "Favourite food", field_type: 1 });
    const data = [
      { id: pronouns, value: "he/him" },
      { id: team, value: "a" },
      { id: birthday, value: "1990-05-01" },
      { id: site, value: "https://adam.example.org/" },
      { id: mentor, value: [fixtures.owner.id] },
      { id: github, value: "adam-dev" },
    ];
    expectSuccess(await api.patch(fixtures.admin, "/users/me/profile_data", { data }));
    expectSuccess(await api.patch(fixtures.admin, "/settings", { timezone: "Asia/Kolkata" }));
    expectSuccess(await api.post(fixtures.admin, "/messages", { type: "stream", to: "lobby", topic: "intro", content: "Hello! Ask @**Olivia Owner** about the plans." }));
    expectSuccess(await api.post(fixtures.owner, "/messages", { type: "stream", to: "lobby", topic: "intro", content: "Welcome aboard." }));
  });

  test("a user's card: role, local time and profile fields, from the sender's name, avatar, a mention and the user list", async () => {
    const member = await signedIn(server.fixtures.member);
    await go(member, `#narrow/channel/${lobbyId}-lobby`);
    const message = article(member, "Ask @Olivia Owner");
    await message.waitFor();

    const sender = message.getByRole("button", { name: "Adam Admin", exact: true });
    const before = timeIn("Asia/Kolkata", new Date());
    await sender.click();
    const adam = card(member, "Adam Admin");
    await adam.waitFor();
    const after = timeIn("Asia/Kolkata", new Date());
    assert.equal(await sender.getAttribute("aria-expanded"), "true");
    assert.equal(await fact(member, "Adam Admin", "Role").innerText(), "Administrator");
    const time = (await fact(member, "Adam Admin", "Local time").innerText()).replace(/\s/g, " ");
    assert.ok(time === before || time === after, `local time ${time}, expected ${before}`);
    assert.equal(await fact(member, "Adam Admin", "Pronouns").innerText(), "he/him");
    assert.equal(await fact(member, "Adam Admin", "Team").innerText(), "Platform");
    assert.equal(await fact(member, "Adam Admin", "Birthday").innerText(), "May 1, 1990");
    assert.equal(await fact(member, "Adam Admin", "Mentor").innerText(), "Olivia Owner");
    assert.equal(await fact(member, "Adam Admin", "Website").getByRole("link", { name: "https://adam.example.org/" }).getAttribute("href"), "https://adam.example.org/");
    assert.equal(await fact(member, "Adam Admin", "GitHub username").getByRole("link", { name: "adam-dev" }).getAttribute("href"), "https://github.com/adam-dev");
    // A field without a value is left out; the terms come in the organization's order.
    assert.equal(await adam.getByRole("term").filter({ hasText: "Favourite food" }).count(), 0);
    assert.deepEqual(await adam.getByRole("term").allInnerTexts(), ["Role", "Email", "Local time", "Joined", "Pronouns", "Team", "Birthday", "Website", "Mentor", "GitHub username"]);
    assert.equal(await adam.getByRole("button", { name: "Mute user" }).count(), 1);

    // Esc closes it and gives the focus back to the name.
    await member.keyboard.press("Escape");
    await adam.waitFor({ state: "detached" });
    assert.equal(await sender.evaluate((el) => el === document.activeElement), true);

    // A mention opens the mentioned user's card; a press outside closes it.
    await message.getByRole("button", { name: "@Olivia Owner" }).click();
    const olivia = card(member, "Olivia Owner");
    await olivia.waitFor();
    assert.equal(await fact(member, "Olivia Owner", "Role").innerText(), "Owner");
    // No time zone set: no local time.
    assert.equal(await olivia.getByRole("term").filter({ hasText: "Local time" }).count(), 0);
    await heading(member).click();
    await olivia.waitFor({ state: "detached" });
    // From the keyboard too: a mention takes the focus, and Enter opens the card.
    await message.getByRole("button", { name: "@Olivia Owner" }).focus();
    await member.keyboard.press("Enter");
    await olivia.waitFor();
    await member.keyboard.press("Escape");
    await olivia.waitFor({ state: "detached" });

    // The sender's avatar, then the user list's button; the user's own card offers the status, not muting.
    await article(member, "Welcome aboard.").locator(".message-gutter .avatar").click();
    await olivia.waitFor();
    await member.keyboard.press("Escape");
    await userList(member).getByRole("button", { name: "Actions for Max Member" }).click();
    const self = card(member, "Max Member");
    await self.getByRole("heading", { name: "Max Member (you)" }).waitFor();
    assert.equal(await self.getByRole("button", { name: "Mute user" }).count(), 0);
    await self.getByRole("button", { name: "Set status" }).waitFor();
    await member.keyboard.press("Escape");
    await member.context().close();
  });

  test("the card's actions: a direct message to the user, and the messages they sent", async () => {
    const member = await signedIn(server.fixtures.member);
    await go(member, `#narrow/channel/${lobbyId}-lobby`);
    await article(member, "Welcome aboard.").waitFor();
    await userList(member).getByRole("button", { name: "Actions for Adam Admin" }).click();
    await card(member, "Adam Admin").getByRole("button", { name: "Send direct message" }).click();
    await card(member, "Adam Admin").waitFor({ state: "detached" });
    await heading(member).filter({ hasText: /^Adam Admin$/ }).waitFor();
    await member.getByRole("textbox", { name: "Message" }).fill("Hi Adam, from your card.");
    await member.keyboard.press("Control+Enter");
    await article(member, "Hi Adam, from your card.").waitFor();

    await userList(member).getByRole("button", { name: "Actions for Adam Admin" }).click();
    await card(member, "Adam Admin").getByRole("button", { name: "View messages sent" }).click();
    await heading(member).filter({ hasText: /^Search: sender:/ }).waitFor();
    await article(member, "Ask @Olivia Owner").waitFor();
    // Only Adam's: not the owner's message of the same topic, nor the member's own.
    assert.equal(await article(member, "Welcome aboard.").count(), 0);
    assert.equal(await article(member, "Hi Adam, from your card.").count(), 0);
    await member.context().close();
  });

  test("a status set from one's menu is seen live by another user, on the user list and the card, and cleared", async () => {
    const [member, owner] = await Promise.all([signedIn(server.fixtures.member), signedIn(server.fixtures.owner)]);
    const maxRow = userList(owner).getByRole("listitem").filter({ has: owner.getByRole("link", { name: /^Max Member, / }) });

    await accountAction(member, "Set status");
    const dialog = member.getByRole("dialog", { name: "Set status" });
    await dialog.getByRole("button", { name: "In a meeting" }).click();
    assert.equal(await dialog.getByLabel("Status message").inputValue(), "In a meeting");
    await dialog.getByRole("button", { name: "Emoji: date" }).waitFor();
    await dialog.getByRole("button", { name: "Save status" }).click();
    await dialog.waitFor({ state: "detached" });
    await maxRow.getByRole("img", { name: "Status: In a meeting" }).waitFor();

    // Edited: own words and an emoji from the picker.
    await accountAction(member, "Edit status");
    assert.equal(await dialog.getByLabel("Status message").inputValue(), "In a meeting");
    await dialog.getByLabel("Status message").fill("Lunch, back at two");
    await dialog.getByRole("button", { name: "Emoji: date" }).click();
    const picker = member.getByRole("dialog", { name: "Status emoji" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("pizza");
    await picker.getByRole("button", { name: "pizza" }).click();
    await dialog.getByRole("button", { name: "Emoji: pizza" }).waitFor();
    await dialog.getByRole("button", { name: "Save status" }).click();
    await dialog.waitFor({ state: "detached" });
    await maxRow.getByRole("img", { name: "Status: Lunch, back at two" }).waitFor();
    await maxRow.getByRole("button", { name: "Actions for Max Member" }).click();
    const maxCard = card(owner, "Max Member");
    assert.equal((await maxCard.getByLabel("Status").innerText()).replace(/\s+/g, " ").trim(), "🍕 Lunch, back at two");

    // Cleared: gone from the open card and the list.
    await accountAction(member, "Clear status");
    await maxCard.getByLabel("Status").waitFor({ state: "detached" });
    await maxRow.getByRole("img", { name: /^Status: / }).waitFor({ state: "detached" });
    await owner.keyboard.press("Escape");
    await Promise.all([member.context().close(), owner.context().close()]);
  });

  test("invisible mode: another user sees the user offline, live, and back when it ends", async () => {
    const [member, owner] = await Promise.all([signedIn(server.fixtures.member), signedIn(server.fixtures.owner)]);
    const maxLink = (state: string) => userList(owner).getByRole("link", { name: `Max Member, ${state}` });
    await userList(owner).getByRole("link", { name: /^Max Member, (active|idle)$/ }).waitFor();

    await accountAction(member, "Go invisible");
    await maxLink("offline").waitFor();
    // The user sees themselves offline too, and their card says why.
    await userList(member).getByRole("link", { name: "Max Member (you), offline" }).waitFor();
    await userList(member).getByRole("button", { name: "Actions for Max Member" }).click();
    await card(member, "Max Member").getByText("Invisible").waitFor();
    await member.keyboard.press("Escape");
    // Still offline after both tabs report presence again (the member's report records nothing, the owner's answer agrees).
    for (const page of [member, owner]) {
      const answered = page.waitForResponse((r) => r.url().endsWith("/json/users/me/presence"));
      await page.evaluate(() => window.dispatchEvent(new Event("focus")));
      await answered;
    }
    assert.equal(await maxLink("offline").count(), 1);

    await accountAction(member, "Turn off invisible mode");
    await userList(owner).getByRole("link", { name: /^Max Member, (active|idle)$/ }).waitFor();
    await userList(member).getByRole("link", { name: /^Max Member \(you\), (active|idle)$/ }).waitFor();
    await Promise.all([member.context().close(), owner.context().close()]);
  });
});
