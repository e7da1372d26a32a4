/**
 * The administrators' data exports screen in a real browser against a real server (SQLite): an
 * administrator starts a standard export, sees it listed in progress and then complete (live,
 * by the realm_export event), downloads its file with the browser's session (a gzip tarball),
 * and deletes it; a member is not offered the screen and cannot fetch the file. Found by role
 * and name; every wait is on a locator.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { useBrowserSuite } from "../helpers/browser-suite.ts";
import { expectSuccess } from "../helpers/client.ts";

describe("data exports screen in a browser (sqlite)", () => {
  const suite = useBrowserSuite();
  const { server } = suite;
  let admin: Page;
  let member: Page;

  const settings = (page: Page) => page.getByRole("dialog", { name: "Settings", exact: true });

  before(async () => {
    [{ page: admin }, { page: member }] = await Promise.all([suite.signedIn(server.fixtures.admin), suite.signedIn(server.fixtures.member)]);
  });

  test("an administrator starts an export, sees it complete, downloads and deletes it; a member gets neither the screen nor the file", async () => {
    await admin.getByRole("button", { name: "Settings", exact: true }).click();
    await settings(admin).getByRole("tab", { name: "Data exports" }).click();
    const screen = settings(admin).getByRole("tabpanel", { name: "Data exports" });
    await screen.getByRole("heading", { name: "Export organization" }).waitFor();
    await screen.getByText("No exports yet.").waitFor();
    const form = screen.getByRole("form", { name: "Start an export" });
    await form.getByRole("radio", { name: /^Standard/ }).check();
    await form.getByRole("button", { name: "Start export" }).click();
    await form.getByRole("status").filter({ hasText: "Export started." }).waitFor();

    const table = screen.getByRole("table", { name: "Exports" });
    const row = table.getByRole("row").filter({ hasText: server.fixtures.admin.fullName });
    await row.getByRole("cell", { name: "Standard" }).waitFor();
    await row.getByRole("cell", { name: "Complete" }).waitFor();
    const [listed] = expectSuccess(await server.api.get(server.fixtures.admin, "/export/realm")).exports;
    const link = row.getByRole("link", { name: `Download export ${listed.id}` });
    const href = await link.getAttribute("href");
    assert.equal(href, listed.export_url);

    const file = await admin.context().request.get(href!);
    assert.equal(file.status(), 200);
    assert.equal(file.headers()["content-type"], "application/gzip");
    assert.equal((await file.body()).subarray(0, 2).toString("hex"), "1f8b");
    assert.equal((await member.context().request.get(href!)).status(), 404);

    await row.getByRole("button", { name: `Delete export ${listed.id}` }).click();
    await row.getByRole("group", { name: `Delete export ${listed.id}?` }).getByRole("button", { name: "Yes, delete" }).click();
    await row.getByRole("cell", { name: "Deleted" }).waitFor();
    await link.waitFor({ state: "detached" });
    assert.equal((await admin.context().request.get(href!)).status(), 404);

    await member.getByRole("button", { name: "Settings", exact: true }).click();
    await settings(member).getByRole("tab", { name: "Profile" }).waitFor();
    assert.equal(await settings(member).getByRole("tab", { name: "Data exports" }).count(), 0);
  });
});
