/**
 * Missed-message emails (Zulip's offline email notifications), against a real SMTP server: a user
 * away from the app who is sent a direct message, mentioned, or written to in a topic they
 * follow or a channel they chose emails for gets one email per conversation once their batching
 * period (email_notifications_batching_period_seconds, a second or two here) is over, with the
 * messages, why it was sent and links back into the web app, in plain text and HTML; a user at
 * their desk gets none; what they read or what was deleted meanwhile is left out; their settings
 * and the organization's are honoured; a batch waiting when the server stops goes out after the
 * restart, once, even with two processes sharing the database.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { registerQueue } from "../helpers/events.ts";
import { createStream, sendDirectMessage, sendStreamMessage } from "../helpers/factories.ts";
import { mailParts, recordArrivals } from "../helpers/mail-parts.ts";
import { useMailServer } from "../helpers/mail-suite.ts";
import { startServerOnStore, type TestServer } from "../helpers/server.ts";
import { waitFor } from "../helpers/smtp.ts";
import { forEachStore } from "../helpers/suite.ts";

forEachStore("missed-message emails", (store) => {
  const { smtp, server, env } = useMailServer(store);
  const arrivals = recordArrivals(smtp);

  const settings = (user: Credentials, params: Record<string, unknown>) => server.api.patch(user, "/settings", params).then(expectSuccess);
  /** The mails to `to` after the first `from` mails, once `count` have arrived. */
  const mailsTo = (to: string, count: number, from = 0) =>
    waitFor(`${count} mails to ${to}`, () => {
      const found = smtp.mails.slice(from).filter((m) => m.to.includes(to));
      return found.length >= count ? found : undefined;
    });
  /** Once nothing waits: no batch, no decision, no email to send (so nothing more will come). */
  const settled = () =>
    waitFor("the email-notification queues to empty", () =>
      withDb(server, async (db) => {
        const count = async (table: "missed_message_emails" | "email_notify_jobs" | "email_jobs") => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
        return (await count("missed_message_emails")) + (await count("email_notify_jobs")) + (await count("email_jobs")) === 0 ? true : undefined;
      }),
    );

  before(async () => {
    const { owner, admin, moderator, member, guest } = server.fixtures;
    await createStream(server, owner, "mailroom", { principals: JSON.stringify([owner.id, admin.id, moderator.id, member.id, guest.id]) });
    for (const user of [owner, admin, moderator, member, guest]) await settings(user, { email_notifications_batching_period_seconds: 2 });
  });

  test("an away user mentioned, sent direct messages and written to in a followed topic gets one email per conversation, after the batching period", async () => {
    const { owner, admin, member } = server.fixtures;
    const seen = smtp.mails.length;
    const channelId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "mailroom" })).stream_id as number;
    expectSuccess(await server.api.post(member, "/user_topics", { stream_id: channelId, topic: "lunch", visibility_policy: 3 }));
    // Long enough for every message below to join the first one's batch.
    await settings(member, { email_notifications_batching_period_seconds: 5 });
    const sentAt = Date.now();
    await sendDirectMessage(server, owner, [member.id], "Are you around?");
    await sendStreamMessage(server, admin, "mailroom", "plans", "Context before the mention.");
    await sendStreamMessage(server, admin, "mailroom", "plans", "@**Max Member** can you review the **plans**?");
    await sendStreamMessage(server, owner, "mailroom", "lunch", "Pizza at noon.");
    await sendDirectMessage(server, owner, [member.id], "Ping again: 1 < 2 & bye");
    await sendStreamMessage(server, admin, "mailroom", "lunch", "Count me in.");
    const mails = await mailsTo(member.email, 3, seen);
    await settled();
    assert.equal(smtp.mails.slice(seen).filter((m) => m.to.includes(member.email)).length, 3, "one email per conversation");
    for (const mail of mails) assert.ok((arrivals.get(mail) ?? 0) - sentAt >= 5000, `${mail.subject} came after the batching period`);
    const bySubject = new Map(mails.map((m) => [m.subject, mailParts(m)]));
    assert.deepEqual([...bySubject.keys()].sort(), ["#mailroom > lunch", "#mailroom > plans", "DMs with Olivia Owner"]);

    const dm = bySubject.get("DMs with Olivia Owner");
    assert.ok(dm);
    assert.match(dm.text, /^> Are you around\?\n\n> Ping again: 1 < 2 & bye\n\n--\n\nReply in Test Org:\n\nhttp:\/\/127\.0\.0\.1:\d+\/#narrow\/dm\/\d+-Olivia-Owner\n/);
    assert.match(dm.text, /Manage email preferences:\n\nhttp:\/\/127\.0\.0\.1:\d+\/#settings\/notifications\n$/);
    assert.match(dm.html, /<p>Ping again: 1 &lt; 2 &amp; bye<\/p>/);
    assert.ok(!dm.html.includes("<b>Olivia Owner</b>"), "a one-to-one conversation's messages carry no sender name");

    const plans = bySubject.get("#mailroom > plans");
    assert.ok(plans);
    // The mention, with the message just before it for context; the sender named once per run.
    assert.match(plans.text, /^Adam Admin:\n> Context before the mention\.\n\n> @\*\*Max Member\*\* can you review the \*\*plans\*\*\?\n/);
    assert.match(plans.text, /You are receiving this because you were personally mentioned\.\n\nReply in Test Org:\n\nhttp:\/\/127\.0\.0\.1:\d+\/#narrow\/channel\/\d+-mailroom\/topic\/plans\n/);
    assert.match(plans.html, /<p><b>Adam Admin<\/b>: Context before the mention\.<\/p>/);
    assert.match(plans.html, /<span class="user-mention" data-user-id="\d+">@Max Member<\/span> can you review the <strong>plans<\/strong>\?/);
    assert.match(plans.html, /<a href="http:\/\/127\.0\.0\.1:\d+\/#narrow\/channel\/\d+-mailroom\/topic\/plans">Reply in Test Org<\/a>, or <a href="http:\/\/127\.0\.0\.1:\d+\/#settings\/notifications">manage email preferences<\/a>/);

    const lunch = bySubject.get("#mailroom > lunch");
    assert.ok(lunch);
    assert.match(lunch.text, /^Olivia Owner:\n> Pizza at noon\.\n\nAdam Admin:\n> Count me in\.\n\n--\nYou are receiving this because you have email notifications enabled for topics you follow\.\n/);
    await settings(member, { email_notifications_batching_period_seconds: 2 });
  });

  test("a user at their desk (an event queue and an active presence) is not emailed", async () => {
    const { owner, admin, moderator } = server.fixtures;
    const seen = smtp.mails.length;
    await registerQueue(server.api, moderator, { event_types: ["message"] });
    expectSuccess(await server.api.post(moderator, "/users/me/presence", { status: "active" }));
    await sendDirectMessage(server, owner, [moderator.id], "You are here, no email for this.");
    // The same kind of message to someone away, after it: by the time theirs is out, the first was decided.
    await sendDirectMessage(server, owner, [admin.id], "You are away.");
    await mailsTo(admin.email, 1, seen);
    await settled();
    assert.deepEqual(smtp.mails.slice(seen).map((m) => [m.to, m.subject]), [[[admin.email], "DMs with Olivia Owner"]]);
  });

  test("messages read or deleted before the batch goes out are left out of it", async () => {
    const { owner, admin, member } = server.fixtures;
    await settings(member, { email_notifications_batching_period_seconds: 3 });
    const seen = smtp.mails.length;
    const read = await sendDirectMessage(server, owner, [member.id], "Read this one in the app.");
    const deleted = await sendStreamMessage(server, owner, "mailroom", "oops", "@**Max Member** sent by mistake");
    await sendDirectMessage(server, admin, [member.id], "Still unread.");
    expectSuccess(await server.api.post(member, "/messages/flags", { messages: JSON.stringify([read]), op: "add", flag: "read" }));
    expectSuccess(await server.api.delete(owner, `/messages/${deleted}`));
    const [mail] = await mailsTo(member.email, 1, seen);
    await settled();
    assert.deepEqual(smtp.mails.slice(seen).map((m) => m.subject), ["DMs with Adam Admin"]);
    assert.match(mailParts(mail).text, /^> Still unread\.\n/);
    await settings(member, { email_notifications_batching_period_seconds: 2 });
  });

  test("settings: email off sends nothing; channel emails, hidden content and the organization's name in the subject as chosen", async () => {
    const { owner, admin, member, guest } = server.fixtures;
    const seen = smtp.mails.length;
    const channelId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "mailroom" })).stream_id as number;
    await settings(member, { enable_offline_email_notifications: false });
    // The guest asks for every message of the channel, hides content and wants the organization named.
    expectSuccess(await server.api.post(guest, "/users/me/subscriptions/properties", { subscription_data: JSON.stringify([{ stream_id: channelId, property: "email_notifications", value: true }]) }));
    await settings(guest, { message_content_in_email_notifications: false, realm_name_in_email_notifications_policy: 2 });
    await sendDirectMessage(server, owner, [member.id], "Nobody will email you this.");
    await sendStreamMessage(server, admin, "mailroom", "status", "Weekly status is up. @**Max Member**");
    const [mail] = await mailsTo(guest.email, 1, seen);
    await settled();
    assert.deepEqual(smtp.mails.slice(seen).map((m) => [m.to, m.subject]), [[[guest.email], "New messages [Test Org]"]]);
    const { text, html } = mailParts(mail);
    assert.ok(!text.includes("Weekly status") && !html.includes("Weekly status"), "no content");
    assert.match(text, /^This email does not include message content because you have chosen to hide message content in email notifications\.\n\n--\nYou are receiving this because you have email notifications enabled for #mailroom\.\n\nView or reply in Test Org:\n/);
    await settings(member, { enable_offline_email_notifications: true });
    await settings(guest, { message_content_in_email_notifications: true, realm_name_in_email_notifications_policy: 1 });
  });

  test("an edit that mentions an away user anew emails them the message as edited", async () => {
    const { owner, member } = server.fixtures;
    const seen = smtp.mails.length;
    const id = await sendStreamMessage(server, owner, "mailroom", "edits", "A draft for nobody.");
    expectSuccess(await server.api.patch(owner, `/messages/${id}`, { content: "A draft for @**Max Member** after all." }));
    const [mail] = await mailsTo(member.email, 1, seen);
    await settled();
    assert.equal(mail.subject, "#mailroom > edits");
    assert.match(mailParts(mail).text, /^Olivia Owner:\n> A draft for @\*\*Max Member\*\* after all\.\n\n--\nYou are receiving this because you were personally mentioned\.\n/);
  });

  test("a group mention emails the group's away members and names the group", async () => {
    const { owner, admin, member } = server.fixtures;
    const seen = smtp.mails.length;
    expectSuccess(await server.api.post(owner, "/user_groups/create", { name: "reviewers", description: "Reviews", members: JSON.stringify([member.id]) }));
    await sendStreamMessage(server, admin, "mailroom", "review", "@*reviewers* please look at this.");
    const [mail] = await mailsTo(member.email, 1, seen);
    await settled();
    assert.equal(mail.subject, "#mailroom > review");
    assert.match(mailParts(mail).text, /\n--\nYou are receiving this because @reviewers was mentioned\.\n/);
  });

  test("a batch waiting when the server stops goes out after the restart, once, with two processes sharing the database", async () => {
    const { owner, admin, member } = server.fixtures;
    await settings(member, { email_notifications_batching_period_seconds: 3 });
    const seen = smtp.mails.length;
    await sendDirectMessage(server, owner, [member.id], "Sent before the restart.");
    await sendDirectMessage(server, admin, [member.id], "Also before the restart.");
    await waitFor("the batch to be decided", () => withDb(server, async (db) => ((await db.selectFrom("missed_message_emails").select("id").execute()).length === 2 ? true : undefined)));
    await server.stopProcess();
    const first = await startServerOnStore(server.store, server.fixtures, env());
    server.replace(first);
    let second: TestServer | null = null;
    try {
      second = await startServerOnStore(server.store, server.fixtures, env());
      const mails = await mailsTo(member.email, 2, seen);
      await settled();
      assert.deepEqual(smtp.mails.slice(seen).map((m) => m.subject).sort(), ["DMs with Adam Admin", "DMs with Olivia Owner"]);
      assert.match(mailParts(mails[0]).text, /before the restart/);
    } finally {
      await second?.stopProcess();
    }
    await settings(member, { email_notifications_batching_period_seconds: 2 });
  });
});
