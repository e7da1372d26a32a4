/**
 * "Forgot your password?" in a real browser (SQLite), on a server sending through a real SMTP
 * server: from the login page to the emailed link, a new password typed twice, and a login with
 * it; the browser that was logged in before is logged out. And a new email address asked for in
 * the settings, confirmed from its emailed link's page. Every wait is on a locator or the mail.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { signIn } from "../helpers/browser.ts";
import { mailLink } from "../helpers/mail-links.ts";
import { mailParts } from "../helpers/mail-parts.ts";
import { useMailingBrowser } from "../helpers/mailing-browser.ts";
import { waitFor } from "../helpers/smtp.ts";

describe("web app password reset (sqlite)", () => {
  const suite = useMailingBrowser();

  test("Forgot your password? -> email -> link -> a new password -> logging in with it; the other browser is logged out", async () => {
    const { server, smtp } = suite;
    const { member } = server.fixtures;
    const { page: other } = await suite.open();
    await signIn(other, server.url, member);

    const { page } = await suite.open();
    await page.goto(server.url);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/accounts/password/reset/");
    await page.getByLabel("Email").fill(member.email);
    await page.getByRole("button", { name: "Send me a reset link" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();

    const mail = await waitFor("the reset mail", () => smtp.mails.find((m) => m.to.includes(member.email)));
    const link = mailLink(mailParts(mail).text, server.url, "/accounts/password/reset/");
    await page.goto(link.href);
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await page.getByText(`For your account ${member.email}.`).waitFor();
    await page.getByLabel("New password", { exact: true }).fill("my new secret 42");
    await page.getByLabel("Confirm new password").fill("my new secret 24");
    await page.getByRole("button", { name: "Change my password" }).click();
    await page.getByRole("alert").filter({ hasText: "The two passwords do not match." }).waitFor();
    await page.getByLabel("Confirm new password").fill("my new secret 42");
    await page.getByRole("button", { name: "Change my password" }).click();
    await page.getByRole("heading", { name: "Your password has been changed" }).waitFor();

    await page.getByRole("link", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Log in to Parley" }).waitFor();
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password").fill(member.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").filter({ hasText: "Your username or password is incorrect" }).waitFor();
    await page.getByLabel("Password").fill("my new secret 42");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("textbox", { name: "Message" }).waitFor();

    // The link worked once.
    await page.goto(link.href);
    await page.getByRole("heading", { name: "This link cannot be used" }).waitFor();
    await other.reload();
    await other.getByRole("heading", { name: "Log in to Parley" }).waitFor();
  });

  test("Settings > Profile: a new email address is confirmed from its emailed link, whose page makes the change", async () => {
    const { server, smtp } = suite;
    const { moderator } = server.fixtures;
    const { page } = await suite.open();
    await signIn(page, server.url, moderator);
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.getByText(`Email: ${moderator.email}`).waitFor();
    await dialog.getByLabel("New email address").fill("mona.new@example.org");
    await dialog.getByRole("button", { name: "Change email address" }).click();
    await dialog.getByRole("status").filter({ hasText: "We sent a confirmation link to mona.new@example.org" }).waitFor();

    const mail = await waitFor("the confirmation mail", () => smtp.mails.find((m) => m.to.includes("mona.new@example.org")));
    const link = mailLink(mailParts(mail).text, server.url, "/accounts/confirm_new_email/");
    const { page: opened } = await suite.open();
    await opened.goto(link.href);
    await opened.getByRole("heading", { name: "Your email address has been changed" }).waitFor();
    await opened.getByText("mona.new@example.org").waitFor();
    await waitFor("the old address's notice", () => smtp.mails.find((m) => m.to.includes(moderator.email)));
    await opened.reload();
    await opened.getByRole("heading", { name: "This link cannot be used" }).waitFor();
  });
});
