/**
 * Digest emails, against a real SMTP server, on the server's clock (moved forward by the test):
 * with digest_emails_enabled and on the organization's digest_weekday, a person away for five
 * days gets the liveliest conversations of their channels since then and the channels created
 * meanwhile (or only the counts, when they hide message content from emails); someone active
 * lately, and someone with nothing to read about, gets none.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectSuccess } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { createStream, sendStreamMessage } from "../helpers/factories.ts";
import { mailParts } from "../helpers/mail-parts.ts";
import { useMailServer } from "../helpers/mail-suite.ts";
import { waitFor } from "../helpers/smtp.ts";
import { forEachStore } from "../helpers/suite.ts";

const DAY = 24 * 60 * 60;

/** Zulip's weekday of a UNIX time: Monday 0 ... Sunday 6, in UTC. */
const weekdayOf = (seconds: number) => (new Date(seconds * 1000).getUTCDay() + 6) % 7;

forEachStore("digest emails", (store) => {
  const { smtp, server } = useMailServer(store);

  test("on the digest weekday, people away for days get their channels' hot conversations and the new channels; the active and those with nothing new get none", async () => {
    const { owner, admin, moderator, member, guest } = server.fixtures;
    await createStream(server, owner, "digestroom", { principals: JSON.stringify([owner.id, admin.id, moderator.id, member.id]) });
    // The server's time (the test moves its clock): the timestamp of a message sent now.
    const before = await sendStreamMessage(server, owner, "digestroom", "old news", "From before the digest's span.");
    const start = expectSuccess(await server.api.get(owner, `/messages/${before}`)).message.timestamp as number;
    await server.advanceClock(2 * DAY);
    await sendStreamMessage(server, admin, "digestroom", "launch", "We ship on Friday.");
    await sendStreamMessage(server, owner, "digestroom", "launch", "The checklist is ready.");
    await sendStreamMessage(server, moderator, "digestroom", "launch", "QA is done.");
    await sendStreamMessage(server, admin, "digestroom", "launch", "Great work.");
    await sendStreamMessage(server, owner, "digestroom", "misc", "Lunch at noon?");
    await createStream(server, owner, "fresh");
    // The admin hides message content from emails: their digest has counts only.
    expectSuccess(await server.api.patch(admin, "/settings", { message_content_in_email_notifications: false }));
    await server.advanceClock(3 * DAY);
    // The moderator was active a day before the digest.
    expectSuccess(await server.api.post(moderator, "/users/me/presence", { status: "active" }));
    expectSuccess(await server.api.patch(owner, "/realm", { digest_emails_enabled: true, digest_weekday: weekdayOf(start + 6 * DAY) }));
    const seen = smtp.mails.length;
    await server.advanceClock(DAY);

    const [mail] = await waitFor("the member's digest", () => {
      const found = smtp.mails.slice(seen).filter((m) => m.to.includes(member.email));
      return found.length > 0 ? found : undefined;
    });
    await waitFor("the digests to be sent", () => withDb(server, async (db) => ((await db.selectFrom("email_jobs").select("id").execute()).length === 0 ? true : undefined)));
    assert.equal(mail.subject, "Digest for Test Org");
    const { text, html } = mailParts(mail);
    assert.match(
      text,
      /^digestroom > launch\nAdam Admin:\n> We ship on Friday\.\nOlivia Owner:\n> The checklist is ready\.\n\+ 2 more messages by Adam Admin, Mona Moderator, and Olivia Owner\.\n\ndigestroom > misc\nOlivia Owner:\n> Lunch at noon\?\n\n\*\* New channels \*\*\n {4}fresh\.\n\nLog in to Test Org to catch up: http:\/\/127\.0\.0\.1:\d+\n/,
    );
    assert.ok(!text.includes("From before"), "only what was sent in the last five days");
    assert.match(html, /<div class='hot_convo_recipient_header'><a href="http:\/\/127\.0\.0\.1:\d+\/#narrow\/channel\/\d+-digestroom">digestroom<\/a> &gt; <a href="http:\/\/127\.0\.0\.1:\d+\/#narrow\/channel\/\d+-digestroom\/topic\/launch">launch<\/a><\/div>/);
    assert.match(html, /<p><b>Adam Admin<\/b>: We ship on Friday\.<\/p>/);

    const byUser = new Map(smtp.mails.slice(seen).map((m) => [m.to[0], m]));
    const counts = byUser.get(admin.email);
    assert.ok(counts, "the admin gets a digest without content");
    assert.match(mailParts(counts).text, /^You have \d+ new messages, and there are 1 new channels in Test Org\.\n\nThis email does not include message content because you have chosen to hide message content in email notifications\./);
    assert.ok(!byUser.has(moderator.email), "someone active lately gets no digest");
    assert.ok(!byUser.has(guest.email), "a guest in no channel with news, and no new web-public channel, gets none");
    const considered = await withDb(server, (db) => db.selectFrom("digest_emails").select("user_id").where("user_id", "=", member.id).execute());
    assert.equal(considered.length, 1, "the member is left out of the day's further passes");
  });
});
