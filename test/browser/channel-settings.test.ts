/**
 * A channel's settings in a real browser against a real server (SQLite): a member changes their
 * own settings for a channel (colour, muting, pinning, a notification override) from the
 * channel's sidebar menu, and the sidebar follows, in another tab too; an administrator renames
 * a channel and makes it private from the administrators' channel list, and archives one from
 * the sidebar; a member who may not administer a channel is offered no edit controls, and when
 * the permission goes away behind the open dialog, the server's refusal is shown. Found by role
 * and name; every wait is on a locator or a response.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";

describe("channel settings in a browser (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let member: Page;
  const ids: Record<string, number> = {};

  const sidebar = (page: Page) => page.getByRole("navigation", { name: "Channels and conversations" });
  const channelList = (page: Page) => sidebar(page).getByRole("list", { name: "Channels", exact: true });
  const channelLink = (page: Page, name: string) => channelList(page).getByRole("link", { name: new RegExp(`^${name}(, \\d+ unread)?$`) });
  const settingsDialog = (page: Page, name: string) => page.getByRole("dialog", { name: `Settings for #${name}` });
  const groupsFetched = (page: Page) => page.waitForResponse((r) => r.url().includes("/json/user_groups") && r.request().method() === "GET");
  const propertySaved = (page: Page) => page.waitForResponse((r) => r.url().endsWith("/json/users/me/subscriptions/properties"));

  /** Opens a channel's menu in the sidebar and picks one of its items. */
  async function channelAction(page: Page, name: string, item: string): Promise<void> {
    await sidebar(page).getByRole("button", { name: `Channel actions for ${name}` }).click();
    await page.getByRole("menu", { name: `Channel actions for ${name}` }).getByRole("menuitem", { name: item }).click();
  }

  /** Opens a channel's settings from its sidebar menu, once the groups (which decide the edit controls) are fetched. */
  async function openSettings(page: Page, name: string): Promise<Locator> {
    const fetched = groupsFetched(page);
    await channelAction(page, name, "Channel settings");
    await fetched;
    const dialog = settingsDialog(page, name);
    await dialog.waitFor();
    return dialog;
  }

  async function mySubscription(name: string) {
    const subs = expectSuccess(await server.api.get(server.fixtures.member, "/users/me/subscriptions")).subscriptions;
    return subs.find((s: { name: string }) => s.name === name);
  }

  before(async () => {
    const { fixtures, api } = server;
    const everyone = [fixtures.owner.email, fixtures.admin.email, fixtures.member.email];
    const channels = [
      { name: "lobby", description: "" },
      { name: "zeta", description: "Where the Z team talks" },
      { name: "plans", description: "What comes next" },
      { name: "docs", description: "Manuals" },
      { name: "scratch", description: "" },
    ];
    for (const c of channels) expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [c], principals: everyone }));
    for (const c of channels) ids[c.name] = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: c.name })).stream_id;
    ({ page: member } = await suite.signedIn(fixtures.member));
  });

  test("a member changes colour, muting, pinning and a notification override; the sidebar follows, in another tab too", async () => {
    const { page: other } = await suite.signedIn(server.fixtures.member);
    const dialog = await openSettings(member, "zeta");
    await dialog.getByText("Where the Z team talks").waitFor();
    await dialog.getByRole("heading", { name: "Subscribers (3)" }).waitFor();
    assert.deepEqual(await dialog.getByRole("list", { name: "Subscribers" }).getByRole("listitem").allInnerTexts(), ["Adam Admin", "Max Member", "Olivia Owner"]);

    let saved = propertySaved(member);
    await dialog.getByLabel("Channel colour").fill("#ff0000");
    assert.equal((await saved).status(), 200);
    for (const page of [member, other]) await channelLink(page, "zeta").locator('.sidebar-icon[style*="rgb(255, 0, 0)"]').waitFor();

    // Pinned, it leads the list (the others are by name).
    assert.equal(await channelList(member).getByRole("link").first().getAttribute("aria-label"), "docs");
    saved = propertySaved(member);
    await dialog.getByRole("checkbox", { name: "Pin to top of the sidebar" }).check();
    assert.equal((await saved).status(), 200);
    for (const page of [member, other]) await channelList(page).getByRole("listitem").first().getByRole("link", { name: "zeta" }).waitFor();

    saved = propertySaved(member);
    await dialog.getByRole("checkbox", { name: "Mute channel" }).check();
    assert.equal((await saved).status(), 200);
    await sidebar(other).locator(".channel-row.muted-channel").getByRole("link", { name: "zeta" }).waitFor();

    // Desktop notifications for channels are off by default: the override turns them on here.
    const desktop = dialog.getByRole("checkbox", { name: "Desktop notifications" });
    assert.equal(await desktop.isChecked(), false);
    saved = propertySaved(member);
    await desktop.check();
    assert.equal((await saved).status(), 200);

    const sub = await mySubscription("zeta");
    assert.deepEqual([sub.color, sub.pin_to_top, sub.is_muted, sub.desktop_notifications, sub.audible_notifications], ["#ff0000", true, true, true, null]);

    // The other tab's dialog shows the settings as they are now.
    await openSettings(other, "zeta");
    const mirrored = settingsDialog(other, "zeta");
    for (const name of ["Pin to top of the sidebar", "Mute channel", "Desktop notifications"]) assert.equal(await mirrored.getByRole("checkbox", { name }).isChecked(), true, name);
    await other.keyboard.press("Escape");
    await mirrored.waitFor({ state: "detached" });

    await member.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await sidebar(member).getByRole("button", { name: "Channel actions for zeta" }).click();
    const menu = member.getByRole("menu", { name: "Channel actions for zeta" });
    assert.deepEqual(await menu.getByRole("menuitem").allInnerTexts(), ["Channel settings", "Unpin from top", "Unmute channel", "Unsubscribe"]);
    await member.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
  });

  test("an administrator renames a channel and makes it private from the channel list, and archives one from the sidebar", async () => {
    const { fixtures, api } = server;
    const { page: admin } = await suite.signedIn(fixtures.admin);
    await admin.getByRole("button", { name: "Settings", exact: true }).click();
    const settings = admin.getByRole("dialog", { name: "Settings", exact: true });
    await settings.getByRole("tab", { name: "Channels" }).click();
    await settings.getByRole("button", { name: "Settings for #plans" }).click();
    const dialog = settingsDialog(admin, "plans");
    await dialog.getByRole("textbox", { name: "Channel name" }).fill("roadmap");
    await dialog.getByRole("radio", { name: /^Private, shared history/ }).check();
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await settingsDialog(admin, "roadmap").getByRole("status").filter({ hasText: "The channel settings were saved." }).waitFor();

    const stream = expectSuccess(await api.get(fixtures.owner, `/streams/${ids.plans}`)).stream;
    assert.deepEqual([stream.name, stream.invite_only, stream.history_public_to_subscribers], ["roadmap", true, true]);
    // The member, a subscriber, sees the new name live; the administrators' list is reloaded.
    await channelLink(member, "roadmap").waitFor();
    await settings.getByRole("list", { name: "Channels" }).getByText("🔒 roadmap").waitFor();

    await admin.keyboard.press("Escape");
    await settingsDialog(admin, "roadmap").waitFor({ state: "detached" });
    await settings.getByRole("button", { name: "Close" }).click();
    await settings.waitFor({ state: "detached" });

    const scratch = await openSettings(admin, "scratch");
    await scratch.getByRole("button", { name: "Archive channel" }).click();
    await scratch.getByRole("group", { name: "Archive #scratch?" }).getByRole("button", { name: "Yes, archive" }).click();
    await scratch.waitFor({ state: "detached" });
    await channelLink(member, "scratch").waitFor({ state: "detached" });
    const all = expectSuccess(await api.get(fixtures.owner, "/streams", { include_all: true, exclude_archived: false })).streams;
    assert.equal(all.find((s: { stream_id: number }) => s.stream_id === ids.scratch)?.is_archived, true);
  });

  test("a member who may not administer a channel gets no edit controls; when the permission goes away behind the dialog, the server's refusal shows", async () => {
    const { fixtures, api } = server;
    const zeta = await openSettings(member, "zeta");
    await zeta.getByRole("heading", { name: "Your settings" }).waitFor();
    assert.equal(await zeta.getByRole("textbox", { name: "Channel name" }).count(), 0);
    assert.equal(await zeta.getByRole("button", { name: "Archive channel" }).count(), 0);
    await member.keyboard.press("Escape");
    await zeta.waitFor({ state: "detached" });

    // The owner lets a group administer #docs, with the member in it.
    const group = expectSuccess(await api.post(fixtures.owner, "/user_groups/create", { name: "Editors", description: "Keep the docs", members: [fixtures.member.id] })).group_id;
    expectSuccess(await api.patch(fixtures.owner, `/streams/${ids.docs}`, { can_administer_channel_group: { new: group } }));
    const docs = await openSettings(member, "docs");
    const description = docs.getByRole("textbox", { name: "Description" });
    await description.fill("Manuals and how-tos");

    // Group changes reach no client by event: the dialog still offers the edit, the server refuses it.
    expectSuccess(await api.post(fixtures.owner, `/user_groups/${group}/members`, { delete: [fixtures.member.id] }));
    await docs.getByRole("button", { name: "Save changes" }).click();
    await docs.getByRole("alert").filter({ hasText: "You do not have permission to administer this channel." }).waitFor();
    assert.equal(expectSuccess(await api.get(fixtures.owner, `/streams/${ids.docs}`)).stream.description, "Manuals");
    await member.keyboard.press("Escape");
    await docs.waitFor({ state: "detached" });
  });
});
