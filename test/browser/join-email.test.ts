/**
 * Signing up through a reusable invitation link on a server that sends email (SMTP_URL at a real
 * SMTP server started here), in a real browser (SQLite): the page asks only for the address and
 * says to check the mail; the mailed link opens the sign-up page for that address, where a name
 * and a password finish it. No account exists before. Every wait is on a locator or the mail.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { useMailingBrowser } from "../helpers/mailing-browser.ts";
import { linkToken, waitFor } from "../helpers/smtp.ts";

describe("web app sign-up with email confirmation (sqlite)", () => {
  const suite = useMailingBrowser();

  test("a visitor of a reusable link confirms their address by email, then chooses a name and a password", async () => {
    const { server, smtp } = suite;
    const { owner } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "welcome" }] }));
    const streamId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "welcome" })).stream_id as number;
    const link = expectSuccess(await server.api.post(owner, "/invites/multiuse", { stream_ids: [streamId] })).invite_link as string;

    const { page } = await suite.open();
    await page.goto(link);
    await page.getByRole("heading", { name: "Join Test Org" }).waitFor();
    assert.equal(await page.getByLabel("Password").count(), 0, "no password before the address is confirmed");
    // A disposable address is refused on the page, with the server's words.
    await page.getByLabel("Email").fill("olga@mailinator.com");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("alert").filter({ hasText: "Please use your real email address." }).waitFor();
    await page.getByLabel("Email").fill("olga@example.org");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    await page.getByText("olga@example.org").waitFor();
    expectError(await server.api.post(null, "/fetch_api_key", { username: "olga@example.org", password: "a long enough password 9" }), "AUTHENTICATION_FAILED", "Your username or password is incorrect", 401);

    const mail = await waitFor("the confirmation mail", () => smtp.mails.find((m) => m.to.includes("olga@example.org")));
    const { page: confirmed } = await suite.open();
    await confirmed.goto(`${server.url}/join/${linkToken(server, mail)}/`);
    await confirmed.getByRole("heading", { name: "Join Test Org" }).waitFor();
    await confirmed.getByText("Your account: olga@example.org").waitFor();
    await confirmed.getByLabel("Full name").fill("Olga Onboard");
    await confirmed.getByLabel("Password").fill("a long enough password 9");
    await confirmed.getByRole("button", { name: "Sign up" }).click();
    await confirmed.getByRole("navigation").getByRole("link", { name: "welcome", exact: true }).waitFor();
    assert.equal(new URL(confirmed.url()).pathname, "/", "the sign-up address is left");
  });
});
