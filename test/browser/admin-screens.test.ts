/**
 * The organization screens of the settings dialog in a real browser against a real server
 * (SQLite): user groups (an administrator creates, fills, renames, sets who may join and
 * deactivates them, the server's refusal shown for a group in use; a member sees them read-only,
 * leaves and joins where allowed), linkifiers (added, applied to a new message, reordered,
 * edited, deleted; read-only for a member), and custom emoji (uploaded, shown in a message and
 * offered by the reaction picker, listed with their author, deactivated). Found by role and
 * name; every wait is on a locator or a response.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { PNG } from "../api/uploads-support.ts";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";

type Group = { id: number; name: string; members: number[]; direct_subgroup_ids: number[]; can_join_group: unknown; is_system_group: boolean };

describe("organization screens in a browser (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let admin: Page;
  let member: Page;

  const settings = (page: Page) => page.getByRole("dialog", { name: "Settings", exact: true });
  const panel = (page: Page) => settings(page).getByRole("tabpanel");
  const feed = (page: Page) => page.getByRole("log", { name: "Messages" });
  const article = (page: Page, text: string) => feed(page).getByRole("article").filter({ hasText: text });

  /** Opens the settings dialog on a screen. */
  async function openScreen(page: Page, screen: string): Promise<Locator> {
    if ((await settings(page).count()) === 0) await page.getByRole("button", { name: "Settings", exact: true }).click();
    await settings(page).getByRole("tab", { name: screen }).click();
    await settings(page).getByRole("tabpanel", { name: screen }).waitFor();
    return panel(page);
  }

  async function closeSettings(page: Page): Promise<void> {
    await settings(page).getByRole("button", { name: "Close" }).click();
    await settings(page).waitFor({ state: "detached" });
  }

  /** The combined feed, where new messages show. */
  async function showFeed(page: Page): Promise<void> {
    const link = page.getByRole("navigation", { name: "Channels and conversations" }).getByRole("link", { name: /^Combined feed/ });
    await link.click();
    await link.and(page.locator("[aria-current=page]")).waitFor();
  }

  async function groups(): Promise<Group[]> {
    return expectSuccess(await server.api.get(server.fixtures.owner, "/user_groups")).user_groups;
  }

  const groupRow = (list: Locator, name: string) => list.getByRole("listitem").filter({ has: list.page().getByRole("button", { name: `Details of ${name}`, exact: true }) });

  before(async () => {
    const { fixtures, api } = server;
    const principals = [fixtures.owner.email, fixtures.admin.email, fixtures.member.email];
    expectSuccess(await api.post(fixtures.owner, "/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals }));
    [{ page: admin }, { page: member }] = await Promise.all([suite.signedIn(fixtures.admin), suite.signedIn(fixtures.member)]);
  });

  test("user groups: an administrator creates and edits them; a member sees them read-only and joins and leaves where allowed", async () => {
    const { fixtures } = server;
    const screen = await openScreen(admin, "User groups");
    const create = screen.getByRole("form", { name: "Create a group" });
    for (const [name, description] of [["Designers", "Pixels and type"], ["Leads", "Who decides"]]) {
      await create.getByRole("textbox", { name: "Group name" }).fill(name);
      await create.getByRole("textbox", { name: "Group description" }).fill(description);
      await create.getByRole("button", { name: "Create group" }).click();
      await create.getByRole("status").filter({ hasText: `Group ${name} created.` }).waitFor();
    }
    const list = screen.getByRole("list", { name: "User groups" });
    await groupRow(list, "Designers").getByText("1 member", { exact: true }).waitFor();
    await list.getByRole("button", { name: "Details of Designers" }).click();

    const members = screen.getByRole("region", { name: "Members of Designers" });
    await members.getByRole("combobox", { name: "Add member" }).selectOption({ label: fixtures.member.fullName });
    await members.getByRole("button", { name: "Add", exact: true }).click();
    await members.getByRole("list").getByText(fixtures.member.fullName).waitFor();
    await groupRow(list, "Designers").getByText("2 members", { exact: true }).waitFor();

    const subgroups = screen.getByRole("region", { name: "Subgroups of Designers" });
    await subgroups.getByRole("combobox", { name: "Add subgroup" }).selectOption({ label: "Leads" });
    await subgroups.getByRole("button", { name: "Add", exact: true }).click();
    await subgroups.getByRole("list").getByText("Leads").waitFor();

    const permissions = screen.getByRole("group", { name: "Permissions" });
    await permissions.getByRole("combobox", { name: "Who can join" }).selectOption({ label: "Members" });
    await permissions.getByRole("status").filter({ hasText: "Saved." }).waitFor();

    const details = screen.getByRole("form", { name: "Name and description of Designers" });
    await details.getByRole("textbox", { name: "Group name" }).fill("Design team");
    await details.getByRole("button", { name: "Save name and description" }).click();
    await list.getByRole("button", { name: "Details of Design team" }).waitFor();

    let all = await groups();
    const design = all.find((g) => g.name === "Design team");
    const leads = all.find((g) => g.name === "Leads");
    const membersGroup = all.find((g) => g.is_system_group && g.name === "role:members");
    assert.ok(design && leads && membersGroup);
    assert.deepEqual([...design.members].sort(), [fixtures.admin.id, fixtures.member.id].sort());
    assert.deepEqual([design.direct_subgroup_ids, design.can_join_group], [[leads.id], membersGroup.id]);

    // A subgroup of an active group cannot be deactivated: the server says so.
    await list.getByRole("button", { name: "Details of Design team" }).click();
    await list.getByRole("button", { name: "Details of Leads" }).click();
    await screen.getByRole("button", { name: "Deactivate group" }).click();
    await screen.getByRole("group", { name: "Deactivate Leads?" }).getByRole("button", { name: "Yes, deactivate" }).click();
    await screen.getByRole("alert").filter({ hasText: "Cannot deactivate user group in use." }).waitFor();
    await list.getByRole("button", { name: "Details of Design team" }).click();
    await screen.getByRole("list", { name: "Subgroups of Design team" }).getByRole("button", { name: "Remove Leads" }).click();
    await screen.getByText("No subgroups.").waitFor();
    await list.getByRole("button", { name: "Details of Leads" }).click();
    await screen.getByRole("button", { name: "Deactivate group" }).click();
    await screen.getByRole("group", { name: "Deactivate Leads?" }).getByRole("button", { name: "Yes, deactivate" }).click();
    await list.getByRole("button", { name: "Details of Leads" }).waitFor({ state: "detached" });
    assert.equal((await groups()).some((g) => g.name === "Leads"), false);
    await closeSettings(admin);

    // The member: no editing, but leaving (anyone may) and joining again (members may, now).
    const theirs = await openScreen(member, "User groups");
    // Members may create groups of their own (the organization's default).
    await theirs.getByRole("form", { name: "Create a group" }).waitFor();
    const theirList = theirs.getByRole("list", { name: "User groups" });
    await theirList.getByRole("button", { name: "Details of Design team" }).click();
    assert.equal(await theirList.getByRole("button", { name: "Details of Design team" }).innerText(), "View");
    const group = theirs.getByRole("region", { name: "Group Design team" });
    await group.getByRole("region", { name: "Members of Design team" }).getByText(fixtures.admin.fullName).waitFor();
    for (const control of ["Add member", "Add subgroup", "Group name", "Who can join"]) assert.equal(await group.getByLabel(control).count(), 0, control);
    assert.equal(await group.getByRole("button").count(), 0, "nothing to press in a group one does not manage");
    await theirList.getByRole("button", { name: "Leave Design team" }).click();
    await theirList.getByRole("button", { name: "Join Design team" }).click();
    await theirList.getByRole("button", { name: "Leave Design team" }).waitFor();
    all = await groups();
    assert.ok(all.find((g) => g.name === "Design team")?.members.includes(fixtures.member.id));
    await closeSettings(member);
  });

  test("linkifiers: an administrator adds one and it links a new message; reorders, edits and deletes them; a member only reads them", async () => {
    const { fixtures, api } = server;
    const screen = await openScreen(admin, "Linkifiers");
    const add = screen.getByRole("form", { name: "Add a linkifier" });
    const rows = screen.getByRole("list", { name: "Linkifiers" });
    const linkifiers: Array<[string, string]> = [
      ["#(?P<id>[0-9]+)", "https://tracker.example.com/issues/{id}"],
      ["PR(?P<num>[0-9]+)", "https://code.example.com/pull/{num}"],
    ];
    for (const [pattern, template] of linkifiers) {
      await add.getByRole("textbox", { name: "Pattern" }).fill(pattern);
      await add.getByRole("textbox", { name: "URL template" }).fill(template);
      await add.getByRole("button", { name: "Add linkifier" }).click();
      await rows.getByText(pattern, { exact: true }).waitFor();
    }
    await closeSettings(admin);

    await showFeed(admin);
    expectSuccess(await api.post(fixtures.member, "/messages", { type: "stream", to: "lobby", topic: "bugs", content: "Fixed in #42 by PR7" }));
    const message = article(admin, "Fixed in");
    assert.equal(await message.getByRole("link", { name: "#42" }).getAttribute("href"), "https://tracker.example.com/issues/42");
    assert.equal(await message.getByRole("link", { name: "PR7" }).getAttribute("href"), "https://code.example.com/pull/7");

    await openScreen(admin, "Linkifiers");
    const order = async () => expectSuccess(await api.get(fixtures.member, "/realm/linkifiers")).linkifiers.map((l: { pattern: string }) => l.pattern);
    await rows.getByRole("button", { name: `Move ${linkifiers[1][0]} up` }).click();
    await rows.getByRole("listitem").first().getByText(linkifiers[1][0], { exact: true }).waitFor();
    assert.deepEqual(await order(), [linkifiers[1][0], linkifiers[0][0]]);

    await rows.getByRole("button", { name: `Edit ${linkifiers[0][0]}` }).click();
    const edit = rows.getByRole("form", { name: `Edit ${linkifiers[0][0]}` });
    await edit.getByRole("textbox", { name: "URL template" }).fill("https://bugs.example.com/{id}");
    await edit.getByRole("button", { name: "Save" }).click();
    await rows.getByText("https://bugs.example.com/{id}").waitFor();
    await rows.getByRole("button", { name: `Delete ${linkifiers[1][0]}` }).click();
    await rows.getByText(linkifiers[1][0], { exact: true }).waitFor({ state: "detached" });
    const left = expectSuccess(await api.get(fixtures.member, "/realm/linkifiers")).linkifiers;
    assert.deepEqual(left.map((l: { pattern: string; url_template: string }) => [l.pattern, l.url_template]), [[linkifiers[0][0], "https://bugs.example.com/{id}"]]);
    await closeSettings(admin);

    const theirs = await openScreen(member, "Linkifiers");
    await theirs.getByRole("list", { name: "Linkifiers" }).getByText(linkifiers[0][0], { exact: true }).waitFor();
    assert.equal(await theirs.getByRole("form", { name: "Add a linkifier" }).count(), 0);
    assert.equal(await theirs.getByRole("button", { name: /^(Delete|Edit|Move) / }).count(), 0);
    await closeSettings(member);
  });

  test("custom emoji: an administrator uploads one; it shows in a message and in the reaction picker; deactivated, the picker no longer offers it", async () => {
    const { fixtures, api } = server;
    const screen = await openScreen(admin, "Custom emoji");
    await screen.getByRole("textbox", { name: "Emoji name" }).fill("partyparrot");
    await screen.getByLabel("Emoji image").setInputFiles({ name: "partyparrot.png", mimeType: "image/png", buffer: PNG });
    await screen.getByRole("button", { name: "Add emoji" }).click();
    await screen.getByRole("status").filter({ hasText: "Emoji :partyparrot: added." }).waitFor();
    const row = screen.getByRole("list", { name: "Custom emoji" }).getByRole("listitem").filter({ hasText: ":partyparrot:" });
    await row.getByText(`Added by ${fixtures.admin.fullName}`).waitFor();
    await closeSettings(admin);

    // A member sees it listed, and may not deactivate another's emoji.
    const theirs = await openScreen(member, "Custom emoji");
    await theirs.getByRole("list", { name: "Custom emoji" }).getByText(":partyparrot:").waitFor();
    assert.equal(await theirs.getByRole("button", { name: "Deactivate :partyparrot:" }).count(), 0);
    await closeSettings(member);

    await showFeed(admin);
    expectSuccess(await api.post(fixtures.member, "/messages", { type: "stream", to: "lobby", topic: "fun", content: ":partyparrot: party" }));
    const message = article(admin, "party");
    assert.match((await message.getByRole("img", { name: ":partyparrot:" }).getAttribute("src")) ?? "", /\/user_avatars\/\d+\/emoji\/images\//);
    await message.hover();
    await message.getByRole("button", { name: "Add emoji reaction" }).click();
    let picker = admin.getByRole("dialog", { name: "Add emoji reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("partyp");
    await picker.getByRole("button", { name: "partyparrot", exact: true }).click();
    await message.getByRole("button", { name: "partyparrot: 1, you reacted" }).waitFor();

    const again = await openScreen(admin, "Custom emoji");
    await again.getByRole("button", { name: "Deactivate :partyparrot:" }).click();
    await again.getByRole("group", { name: "Deactivate :partyparrot:?" }).getByRole("button", { name: "Yes, deactivate" }).click();
    await again.getByText("No custom emoji yet.").waitFor();
    await closeSettings(admin);
    await message.hover();
    await message.getByRole("button", { name: "Add emoji reaction" }).click();
    picker = admin.getByRole("dialog", { name: "Add emoji reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("partyp");
    await picker.getByText("No emoji match.").waitFor();
    await admin.keyboard.press("Escape");
    await picker.waitFor({ state: "detached" });
  });
});
