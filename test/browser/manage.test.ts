/**
 * The web app's settings, administration and sign-up screens in a real browser against a real
 * server (SQLite): inviting by link and signing up through it (and the Welcome Bot's greeting),
 * the organization's welcome note, personal settings (name, theme),
 * channels (create, archive), roles, and what a member is not offered. Everything is found by
 * its accessible role and name; every wait is on a locator or a response, never a fixed sleep.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";

describe("web app settings and administration (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.admin.email, fixtures.member.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }, { name: "quiet" }], principals }));
  });


  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });
  const dialog = (page: Page) => page.getByRole("dialog", { name: "Settings" });

  /** A new browser profile, signed in as `user`, at the combined feed. */
  async function signedIn(user: TestUser): Promise<Page> {
    const { page } = await suite.open();
    await page.goto(`${server.url}/#feed`);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("textbox", { name: "Message" }).waitFor();
    return page;
  }

  /** Opens the settings dialog on one of its screens. */
  async function openScreen(page: Page, screen: string): Promise<void> {
    if ((await dialog(page).count()) === 0) await page.getByRole("button", { name: "Settings" }).click();
    await dialog(page).getByRole("tab", { name: screen }).click();
    await dialog(page).getByRole("tabpanel", { name: screen }).waitFor();
  }

  test("the owner creates an invitation link; a newcomer signs up through it, lands in the channel and chats", async () => {
    const owner = await signedIn(server.fixtures.owner);
    await openScreen(owner, "Users");
    const panel = dialog(owner).getByRole("tabpanel");
    // Without SMTP_URL nothing is mailed: the screen offers links only.
    await panel.getByText("This server does not send email").waitFor();
    assert.equal(await panel.getByLabel("Email addresses").count(), 0);
    await panel.getByRole("checkbox", { name: "lobby" }).check();
    await panel.getByRole("button", { name: "Create invitation link" }).click();
    const link = await panel.getByRole("textbox", { name: "Invitation link" }).inputValue();
    assert.match(link, new RegExp(`^${server.url}/join/[A-Za-z0-9]+/$`));
    await panel.getByRole("button", { name: /^Revoke invitation: Reusable link/ }).waitFor();
    await dialog(owner).getByRole("button", { name: "Close" }).click();
    await dialog(owner).waitFor({ state: "detached" });

    const { page: newcomer } = await suite.open();
    await newcomer.goto(link);
    await newcomer.getByRole("heading", { name: "Join Test Org" }).waitFor();
    await newcomer.getByLabel("Email").fill("nina@example.com");
    await newcomer.getByLabel("Full name").fill("Nina Newcomer");
    await newcomer.getByLabel("Password").fill("a long enough password 9");
    await newcomer.getByRole("button", { name: "Sign up" }).click();
    await newcomer.getByRole("navigation").getByRole("link", { name: "lobby", exact: true }).waitFor();
    assert.equal(new URL(newcomer.url()).pathname, "/", "the sign-up address is left");
    assert.equal(await newcomer.getByRole("navigation").getByRole("link", { name: "quiet", exact: true }).count(), 0, "only the invitation's channels");

    await newcomer.getByRole("combobox", { name: "Channel" }).selectOption({ label: "# lobby" });
    await newcomer.getByRole("textbox", { name: "Topic" }).fill("hello");
    const box = newcomer.getByRole("textbox", { name: "Message" });
    await box.fill("Hi all, Nina here.");
    await box.press("Control+Enter");
    await feed(owner).getByRole("article").filter({ hasText: "Hi all, Nina here." }).waitFor();
    assert.match((await feed(owner).getByRole("article").filter({ hasText: "Nina here" }).getAttribute("aria-label")) ?? "", /^Nina Newcomer, /);

    // The Welcome Bot's introduction is among her direct messages (read once the feed showed it).
    await newcomer.getByRole("navigation").getByRole("link", { name: /^Welcome Bot(, 1 unread)?$/ }).click();
    const intro = feed(newcomer).getByRole("article").filter({ hasText: "Hi Nina Newcomer, welcome to Test Org!" });
    await intro.waitFor();
    assert.match((await intro.getAttribute("aria-label")) ?? "", /^Welcome Bot, /);
  });

  test("an unknown invitation link shows the server's error", async () => {
    const { page, context } = await suite.open();
    await page.goto(`${server.url}/join/nosuchtoken/`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /invitation|link/i);
    await context.close();
  });

  test("a member changes their name and the theme; a member is offered no administration", async () => {
    const member = await signedIn(server.fixtures.member);
    await openScreen(member, "Profile");
    const tabs = dialog(member).getByRole("tab");
    assert.deepEqual(await tabs.allInnerTexts(), ["Profile", "Notifications", "Display", "User groups", "Linkifiers", "Custom emoji"]);
    for (const screen of ["Organization", "Channels", "Users", "Invite people"]) assert.equal(await dialog(member).getByRole("tab", { name: screen }).count(), 0);

    await dialog(member).getByLabel("Full name").fill("Maxine Member");
    await dialog(member).getByRole("button", { name: "Save name" }).click();
    await dialog(member).getByRole("status").filter({ hasText: "Your name was changed." }).waitFor();
    const res = expectSuccess(await server.api.get(server.fixtures.member, "/users/me"));
    assert.equal(res.full_name, "Maxine Member");

    await openScreen(member, "Display");
    const background = () => member.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    const saved = member.waitForResponse((r) => r.url().endsWith("/json/settings") && r.request().method() === "PATCH");
    await dialog(member).getByLabel("Theme").selectOption({ label: "Dark" });
    assert.equal((await saved).status(), 200);
    await member.locator("html[data-theme=dark]").waitFor({ state: "attached" });
    assert.notEqual(await background(), light, "the dark theme changes the page's colours");
    await member.keyboard.press("Escape");
    await dialog(member).waitFor({ state: "detached" });
    await member.getByRole("banner").getByText("Maxine Member").waitFor();
  });

  test("an administrator creates a channel, limits who may post, and archives it", async () => {
    const admin = await signedIn(server.fixtures.admin);
    await openScreen(admin, "Channels");
    const panel = dialog(admin).getByRole("tabpanel");
    await panel.getByLabel("Channel name").fill("launch");
    await panel.getByLabel("Description").fill("The launch plan");
    await panel.getByRole("button", { name: "Create channel" }).click();
    await panel.getByRole("button", { name: "Manage #launch" }).click();
    await admin.getByRole("navigation").getByRole("link", { name: "launch", exact: true }).waitFor();

    const posted = admin.waitForResponse((r) => /\/json\/streams\/\d+$/.test(r.url()) && r.request().method() === "PATCH");
    await panel.getByLabel("Who can post").selectOption({ label: "Administrators" });
    assert.equal((await posted).status(), 200);
    const id = expectSuccess(await server.api.get(server.fixtures.admin, "/get_stream_id", { stream: "launch" })).stream_id;
    const groups = expectSuccess(await server.api.get(server.fixtures.admin, "/user_groups")).user_groups;
    const admins = groups.find((g: { name: string }) => g.name === "role:administrators").id;
    assert.equal(expectSuccess(await server.api.get(server.fixtures.admin, `/streams/${id}`)).stream.can_send_message_group, admins);

    const subscribers = panel.getByRole("region", { name: "Subscribers of #launch" });
    await subscribers.getByText("Adam Admin").waitFor();
    await subscribers.getByLabel("Add subscriber").selectOption({ label: "Mona Moderator" });
    await subscribers.getByRole("button", { name: "Subscribe", exact: true }).click();
    await subscribers.getByRole("button", { name: "Unsubscribe Mona Moderator" }).click();
    await subscribers.getByRole("button", { name: "Unsubscribe Mona Moderator" }).waitFor({ state: "detached" });
    const members = expectSuccess(await server.api.get(server.fixtures.admin, `/streams/${id}/members`)).subscribers;
    assert.deepEqual(members, [server.fixtures.admin.id], "the moderator was subscribed, then unsubscribed");

    await panel.getByRole("button", { name: "Archive channel" }).click();
    await panel.getByRole("button", { name: "Yes, archive" }).click();
    await panel.getByRole("button", { name: "Manage #launch" }).waitFor({ state: "detached" });
    await admin.getByRole("navigation").getByRole("link", { name: "launch", exact: true }).waitFor({ state: "detached" });
    const all = expectSuccess(await server.api.get(server.fixtures.admin, "/streams", { include_all: true, exclude_archived: false })).streams;
    assert.equal(all.find((s: { stream_id: number }) => s.stream_id === id)?.is_archived, true);
  });

  test("an administrator changes a user's role and deactivates and reactivates them", async () => {
    const admin = await signedIn(server.fixtures.admin);
    await openScreen(admin, "Users");
    const panel = dialog(admin).getByRole("tabpanel");
    const guest = server.fixtures.guest;
    const changed = admin.waitForResponse((r) => r.url().endsWith(`/json/users/${guest.id}`) && r.request().method() === "PATCH");
    await panel.getByRole("combobox", { name: "Role of Gus Guest" }).selectOption({ label: "Member" });
    assert.equal((await changed).status(), 200);
    assert.equal(expectSuccess(await server.api.get(server.fixtures.admin, `/users/${guest.id}`)).user.role, 400);

    await panel.getByRole("button", { name: "Deactivate Gus Guest" }).click();
    await panel.getByRole("button", { name: "Reactivate Gus Guest" }).click();
    await panel.getByRole("button", { name: "Deactivate Gus Guest" }).waitFor();
    assert.equal(expectSuccess(await server.api.get(server.fixtures.admin, `/users/${guest.id}`)).user.is_active, true);
  });

  test("an administrator writes the welcome note for new users, sends themselves a test, and saves it", async () => {
    const admin = await signedIn(server.fixtures.admin);
    await openScreen(admin, "Organization");
    const panel = dialog(admin).getByRole("tabpanel");
    await panel.getByLabel("Welcome note for new users").fill("Say hello in #**lobby**!");
    await panel.getByRole("button", { name: "Send me a test" }).click();
    await panel.getByRole("status").filter({ hasText: "The Welcome Bot sent you the note" }).waitFor();
    await panel.getByRole("button", { name: "Save changes" }).click();
    await panel.getByRole("status").filter({ hasText: "saved" }).waitFor();
    await dialog(admin).getByRole("button", { name: "Close" }).click();
    await admin.getByRole("navigation").getByRole("link", { name: /^Welcome Bot(, 1 unread)?$/ }).click();
    const note = feed(admin).getByRole("article").filter({ hasText: "Say hello in" });
    await note.getByRole("link", { name: "#lobby" }).waitFor();
    const state = expectSuccess(await server.api.post(server.fixtures.member, "/register", { fetch_event_types: ["realm"] }));
    assert.equal(state.realm_welcome_message_custom_text, "Say hello in #**lobby**!");
  });

  test("an administrator renames the organization; an owner lets members create invitation links", async () => {
    const admin = await signedIn(server.fixtures.admin);
    await openScreen(admin, "Organization");
    let panel = dialog(admin).getByRole("tabpanel");
    await panel.getByLabel("Organization name").fill("Acme Chat");
    assert.equal(await panel.getByLabel("Who can create invitation links").isDisabled(), true, "owners only");
    await panel.getByRole("button", { name: "Save changes" }).click();
    await panel.getByRole("status").filter({ hasText: "saved" }).waitFor();
    await admin.getByRole("banner").getByRole("link", { name: "Acme Chat" }).waitFor();

    const owner = await signedIn(server.fixtures.owner);
    await openScreen(owner, "Organization");
    panel = dialog(owner).getByRole("tabpanel");
    await panel.getByLabel("Who can create invitation links").selectOption({ label: "Members" });
    await panel.getByRole("button", { name: "Save changes" }).click();
    await panel.getByRole("status").filter({ hasText: "saved" }).waitFor();
    const { fixtures, api } = server;
    const state = expectSuccess(await api.post(fixtures.admin, "/register", { fetch_event_types: ["realm"] }));
    const groups = expectSuccess(await api.get(fixtures.admin, "/user_groups")).user_groups;
    assert.equal(state.realm_create_multiuse_invite_group, groups.find((g: { name: string }) => g.name === "role:members").id);

    // A member may now invite by link: the screen is offered to them.
    const member = await signedIn(fixtures.member);
    await member.getByRole("button", { name: "Settings" }).click();
    await dialog(member).getByRole("tab", { name: "Invite people" }).click();
    await dialog(member).getByRole("button", { name: "Create invitation link" }).click();
    assert.match(await dialog(member).getByRole("textbox", { name: "Invitation link" }).inputValue(), /\/join\/[A-Za-z0-9]+\/$/);
  });
});
