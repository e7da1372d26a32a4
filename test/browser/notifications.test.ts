/**
 * Notifications while the tab is open, in a real browser against a real server (SQLite), with
 * the page's Notification API and sounds watched (helpers/notifications-watch.ts): with the
 * permission granted, a direct message, a mention, a followed topic and a channel whose
 * notifications are on each notify, and a direct mention passes a muted topic; a muted topic's
 * wildcard mention, a muted user's message and one's own do not; a channel's own setting beats
 * the global one, both ways, for desktop notifications and for sounds. Then the permission
 * banner (enable on a click, not now, never ask), and the unread count drawn on the tab's icon.
 * Every wait is on a locator, a response or a page function, never a fixed sleep.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { signIn } from "../helpers/browser.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";
import type { TestUser } from "../helpers/fixtures.ts";
import { chimeCount, shownNotifications, WATCH_NOTIFICATIONS, type ShownNotification } from "../helpers/notifications-watch.ts";

describe("notifications and the unread count on the icon (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  const ids: Record<string, number> = {};

  async function send(from: TestUser, to: string, topic: string, content: string): Promise<void> {
    expectSuccess(await server.api.post(from, "/messages", { type: "stream", to, topic, content }));
  }

  async function dm(from: TestUser, to: TestUser, content: string): Promise<void> {
    expectSuccess(await server.api.post(from, "/messages", { type: "direct", to: JSON.stringify([to.id]), content }));
  }

  async function setSubscription(channel: string, property: string, value: boolean): Promise<void> {
    expectSuccess(await server.api.post(server.fixtures.member, "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: ids[channel], property, value }] }));
  }

  /** Waits until the page has shown a notification with this body; answers everything shown so far. */
  async function shownUpTo(page: Page, body: string): Promise<ShownNotification[]> {
    await page.waitForFunction((b) => (window as unknown as { shownNotifications: ShownNotification[] }).shownNotifications.some((n) => n.body === b), body);
    return shownNotifications(page);
  }

  const iconHref = (page: Page) => page.locator("link[rel~=icon]").getAttribute("href");

  before(async () => {
    const { fixtures, api } = server;
    const everyone = [fixtures.owner.email, fixtures.admin.email, fixtures.member.email, fixtures.moderator.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }, { name: "alerts" }, { name: "random" }], principals: everyone }));
    for (const name of ["lobby", "alerts", "random"]) ids[name] = expectSuccess(await api.get(fixtures.owner, "/get_stream_id", { stream: name })).stream_id;
    const { member } = fixtures;
    // Defaults otherwise: desktop notifications and sounds for direct messages, mentions and followed topics; none for channels.
    expectSuccess(await api.post(member, "/user_topics", { stream_id: ids.lobby, topic: "plans", visibility_policy: 3 }));
    expectSuccess(await api.post(member, "/user_topics", { stream_id: ids.lobby, topic: "noise", visibility_policy: 1 }));
    expectSuccess(await api.post(member, `/users/me/muted_users/${fixtures.moderator.id}`));
    await setSubscription("alerts", "desktop_notifications", true);
  });

  test("with permission granted: what notifies and what does not, by the user's settings", async () => {
    const { fixtures } = server;
    const { admin, member, moderator } = fixtures;
    const { context, page } = await suite.open();
    await context.grantPermissions(["notifications"], { origin: server.url });
    await context.addInitScript(WATCH_NOTIFICATIONS);
    await signIn(page, server.url, member);
    await page.evaluate(() => (location.hash = "#narrow/is/starred"));
    await page.getByRole("banner").getByRole("heading", { name: "Starred messages" }).waitFor();
    // Granted: no banner asks for it.
    assert.equal(await page.getByRole("region", { name: "Desktop notifications" }).count(), 0);

    await dm(admin, member, "Are you free?");
    await send(admin, "lobby", "chat", "@**Max Member** can you look?");
    await send(admin, "lobby", "plans", "The plan is ready.");
    await send(admin, "alerts", "deploys", "Deploy finished.");
    await send(admin, "lobby", "noise", "@**Max Member** this one is for you.");
    // Not notified: a wildcard mention in a muted topic, a muted user, one's own messages, a channel without notifications.
    await send(admin, "lobby", "noise", "@**all** nobody listens here.");
    await dm(moderator, member, "From someone muted.");
    await dm(member, admin, "My own words.");
    await send(member, "alerts", "deploys", "My own deploy.");
    await send(admin, "lobby", "smalltalk", "Just chatting.");
    await dm(admin, member, "Sentinel one.");
    assert.deepEqual(await shownUpTo(page, "Sentinel one."), [
      { title: "Adam Admin", body: "Are you free?" },
      { title: "Adam Admin (#lobby > chat)", body: "@Max Member can you look?" },
      { title: "Adam Admin (#lobby > plans)", body: "The plan is ready." },
      { title: "Adam Admin (#alerts > deploys)", body: "Deploy finished." },
      { title: "Adam Admin (#lobby > noise)", body: "@Max Member this one is for you." },
      { title: "Adam Admin", body: "Sentinel one." },
    ]);

    // Sounds: the channel's desktop notifications are on, its sounds not (the global setting is off) ...
    const chimes = await chimeCount(page);
    await send(admin, "alerts", "deploys", "Quiet deploy.");
    await shownUpTo(page, "Quiet deploy.");
    assert.equal(await chimeCount(page), chimes, "no sound for a channel whose sounds are off");
    // ... until the channel's own setting turns them on.
    await setSubscription("alerts", "audible_notifications", true);
    await send(admin, "alerts", "deploys", "Loud deploy.");
    await shownUpTo(page, "Loud deploy.");
    assert.equal(await chimeCount(page), chimes + 1, "a sound for a channel whose sounds are on");

    // Channel notifications on for every channel, off for the lobby: the lobby's own setting wins.
    expectSuccess(await server.api.patch(member, "/settings", { enable_stream_desktop_notifications: true }));
    await setSubscription("lobby", "desktop_notifications", false);
    await send(admin, "lobby", "smalltalk", "The lobby stays quiet.");
    await send(admin, "random", "misc", "Random speaks up.");
    await dm(admin, member, "Sentinel two.");
    const shown = await shownUpTo(page, "Sentinel two.");
    assert.deepEqual(shown.slice(-3), [
      { title: "Adam Admin (#alerts > deploys)", body: "Loud deploy." },
      { title: "Adam Admin (#random > misc)", body: "Random speaks up." },
      { title: "Adam Admin", body: "Sentinel two." },
    ]);
    expectSuccess(await server.api.patch(member, "/settings", { enable_stream_desktop_notifications: false }));
    await context.close();
  });

  test("the permission banner: enable on a click, not now, never ask on this computer", async () => {
    const { member } = server.fixtures;
    const { context, page } = await suite.open();
    await signIn(page, server.url, member);
    const banner = page.getByRole("region", { name: "Desktop notifications" });
    assert.equal(await page.evaluate(() => Notification.permission), "default");
    await banner.getByText("Parley needs your permission to show desktop notifications.").waitFor();

    await banner.getByRole("button", { name: "Not now" }).click();
    await banner.waitFor({ state: "detached" });
    await page.reload();
    await banner.waitFor();

    // A click asks the browser (headless Chromium answers without a prompt), and the banner goes.
    await banner.getByRole("button", { name: "Enable desktop notifications" }).click();
    await banner.waitFor({ state: "detached" });
    assert.notEqual(await page.evaluate(() => Notification.permission), "default");
    // A change in the browser's site settings is followed while the app runs.
    await context.grantPermissions(["notifications"], { origin: server.url });
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("dialog", { name: "Settings" }).getByRole("tab", { name: "Notifications" }).click();
    await page.getByText("This browser shows Parley's notifications").waitFor();
    await context.close();

    const other = await suite.open();
    await signIn(other.page, server.url, member);
    const again = other.page.getByRole("region", { name: "Desktop notifications" });
    await again.getByRole("button", { name: "Never ask on this computer" }).click();
    await again.waitFor({ state: "detached" });
    await other.page.reload();
    await other.page.getByRole("textbox", { name: "Message" }).waitFor();
    assert.equal(await again.count(), 0);
    await other.context.close();
  });

  test("the tab's icon shows the unread count, drawn on it, and comes back when all is read", async () => {
    const { admin, member } = server.fixtures;
    expectSuccess(await server.api.post(member, "/mark_all_as_read", {}));
    const { context, page } = await suite.open();
    await signIn(page, server.url, member);
    await page.evaluate(() => (location.hash = "#narrow/is/starred"));
    await page.getByRole("banner").getByRole("heading", { name: "Starred messages" }).waitFor();
    const plain = await iconHref(page);
    assert.match(plain ?? "", /^data:image\/svg\+xml,/);

    await dm(admin, member, "One to read.");
    await page.waitForFunction(() => document.title.startsWith("(1) ") && document.querySelector("link[rel~=icon]")?.getAttribute("href")?.startsWith("data:image/png"));
    const one = await iconHref(page);
    assert.match(one ?? "", /^data:image\/png;base64,/);
    // The badge is drawn in red at the icon's top right.
    const badge = await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext("2d");
      ctx?.drawImage(img, 0, 0);
      const [r, g, b] = ctx?.getImageData(canvas.width - 3, Math.round(canvas.height * 0.3), 1, 1).data ?? [];
      return { r, g, b };
    }, one ?? "");
    assert.ok(badge.r > 180 && badge.g < 90 && badge.b < 90, `a red badge, got ${JSON.stringify(badge)}`);

    await dm(admin, member, "Two to read.");
    await page.waitForFunction((first) => document.title.startsWith("(2) ") && document.querySelector("link[rel~=icon]")?.getAttribute("href") !== first, one);
    const two = await iconHref(page);
    assert.match(two ?? "", /^data:image\/png;base64,/);

    expectSuccess(await server.api.post(member, "/mark_all_as_read", {}));
    await page.waitForFunction(() => !/^\(\d+\) /.test(document.title) && document.querySelector("link[rel~=icon]")?.getAttribute("href")?.startsWith("data:image/svg"));
    assert.equal(await iconHref(page), plain);
    await context.close();
  });
});
