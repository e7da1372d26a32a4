/**
 * Messages as emails show them (present/email-content.ts) and the message emails' templates
 * (actions/email/templates/): links made absolute, previews dropped, spoilers closed, emoji as
 * characters, the plain text quoted; upstream's subjects, name lists and reason lines; no user
 * text reaches the HTML unescaped.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { emailHtml, emailMessage, emailPlain, SPOILER_NOTE, withSender } from "../../src/present/email-content.ts";
import { displayList } from "../../src/actions/email/templates/message-blocks.ts";
import { missedMessagesEmail, type MissedMessagesInput } from "../../src/actions/email/templates/missed-messages.ts";
import { digestEmail } from "../../src/actions/email/templates/digest.ts";

const SITE = "https://chat.example.org";

test("rendered HTML for email: absolute links, narrow titles, no previews, emoji as characters, spoilers closed", () => {
  const html = emailHtml(
    [
      '<p>See <a href="#narrow/channel/3-ops" title="#narrow/channel/3-ops">#ops</a> and <a href="/user_uploads/2/a/f.pdf">f.pdf</a> <span class="emoji emoji-1f44d" title="+1">:+1:</span></p>',
      '<div class="message_inline_image"><a href="/user_uploads/2/b/p.png"><img src="/user_uploads/thumbnail/2/b/p.png"></a></div>',
      '<div class="spoiler-block"><div class="spoiler-header"><p>Plot</p></div><div class="spoiler-content" aria-hidden="true"><p>He dies.</p></div></div>',
    ].join("\n"),
    SITE,
  );
  assert.match(html, /<a href="https:\/\/chat\.example\.org\/#narrow\/channel\/3-ops" title="https:\/\/chat\.example\.org\/#narrow\/channel\/3-ops">#ops<\/a>/);
  assert.match(html, /<a href="https:\/\/chat\.example\.org\/user_uploads\/2\/a\/f\.pdf">/);
  assert.match(html, /<span title="\+1">👍<\/span>/);
  assert.ok(!html.includes("message_inline_image") && !html.includes("thumbnail"), "previews dropped");
  assert.ok(!html.includes("He dies"), "the spoiler's content is not in the email");
  assert.match(html, /<p>Plot <span class="spoiler-title"/);
  // A message that is only an image becomes a link to it.
  assert.equal(
    emailHtml('<div class="message_inline_image"><a href="/user_uploads/2/b/p.png" title="p.png"><img src="/x.png"></a></div>', SITE),
    '<div><p><a href="https://chat.example.org/user_uploads/2/b/p.png" target="_blank" title="p.png">https://chat.example.org/user_uploads/2/b/p.png</a></p></div>',
  );
});

test("plain text for email: the Markdown quoted, links as URLs, uploads absolute, spoilers closed", () => {
  assert.equal(
    emailPlain("Report: [r.pdf](/user_uploads/2/c/r.pdf)\n```spoiler Ending\nHe dies.\n```\nbye", SITE),
    `> Report: ${SITE}/user_uploads/2/c/r.pdf\n> \`\`\`spoiler Ending\n> ${SPOILER_NOTE}\n> \`\`\`\n> bye`,
  );
});

test("the sender's name starts the first paragraph, escaped", () => {
  const m = withSender(emailMessage({ content: "hi", rendered_content: "<p>hi</p>" }, SITE), "Ada <script>");
  assert.equal(m.html, "<div><p><b>Ada &lt;script&gt;</b>: hi</p></div>");
  assert.equal(m.plain, "Ada <script>:\n> hi");
});

test("name lists as upstream's display_list", () => {
  assert.equal(displayList(["A"], 4), "A");
  assert.equal(displayList(["A", "B"], 4), "A and B");
  assert.equal(displayList(["A", "B", "C"], 4), "A, B, and C");
  assert.equal(displayList(["A", "B", "C", "D", "E"], 4), "A, B, C, D, and 1 other");
  assert.equal(displayList(["A", "B", "C", "D", "E", "F"], 4), "A, B, C, D, and 2 others");
});

const base: MissedMessagesInput = {
  realmName: "Acme",
  realmUrl: SITE,
  conversation: { kind: "direct", senders: ["Bo"] },
  messages: [{ sender: "Bo", content: { html: "<div><p>x</p></div>", plain: "> x" } }],
  reasons: { triggers: new Set(["direct_message"]), personallyMentioned: false, mentionedGroup: null },
  narrowUrl: `${SITE}/#narrow/dm/5-Bo`,
  realmNameInSubject: false,
};

test("missed-message subjects: direct, group, channel (resolved too), hidden content, the organization's name", () => {
  const subject = (over: Partial<MissedMessagesInput>) => missedMessagesEmail({ ...base, ...over }).subject;
  assert.equal(subject({}), "DMs with Bo");
  assert.equal(subject({ conversation: { kind: "group", otherNames: ["Al", "Bo"] } }), "Group DMs with Al and Bo");
  assert.equal(subject({ conversation: { kind: "group", otherNames: ["Al", "Bo", "Cy"] } }), "Group DMs with Al, Bo, and Cy");
  assert.equal(subject({ conversation: { kind: "group", otherNames: ["Al", "Bo", "Cy", "Di"] } }), "Group DMs with Al, Bo, and 2 others");
  assert.equal(subject({ conversation: { kind: "channel", channel: "ops", topic: "deploy", resolved: false } }), "#ops > deploy");
  assert.equal(subject({ conversation: { kind: "channel", channel: "ops", topic: "deploy", resolved: true } }), "[resolved] #ops > deploy");
  assert.equal(subject({ messages: { hiddenBy: "realm" } }), "New messages");
  assert.equal(subject({ realmNameInSubject: true }), "DMs with Bo [Acme]");
});

test("missed-message reasons in upstream's order, and the organization's hiding of content", () => {
  const channel = { kind: "channel", channel: "ops", topic: "deploy", resolved: false } as const;
  const text = (reasons: MissedMessagesInput["reasons"], over: Partial<MissedMessagesInput> = {}) => missedMessagesEmail({ ...base, conversation: channel, reasons, ...over }).body;
  const triggers = (...names: string[]) => new Set(names);
  assert.match(text({ triggers: triggers("mentioned", "stream_email_notify"), personallyMentioned: true, mentionedGroup: null }), /because you were personally mentioned\./);
  assert.match(text({ triggers: triggers("mentioned"), personallyMentioned: false, mentionedGroup: "devs" }), /because @devs was mentioned\./);
  assert.match(text({ triggers: triggers("topic_wildcard_mentioned"), personallyMentioned: false, mentionedGroup: null }), /because all topic participants were mentioned in #ops > deploy\./);
  assert.match(text({ triggers: triggers("stream_wildcard_mentioned"), personallyMentioned: false, mentionedGroup: null }), /because everyone was mentioned in #ops\./);
  assert.match(text({ triggers: triggers("stream_wildcard_mentioned_in_followed_topic"), personallyMentioned: false, mentionedGroup: null }), /wildcard mention notifications enabled for topics you follow\./);
  assert.match(text({ triggers: triggers("stream_email_notify"), personallyMentioned: false, mentionedGroup: null }), /email notifications enabled for #ops\./);
  const hidden = missedMessagesEmail({ ...base, messages: { hiddenBy: "realm" } });
  assert.match(hidden.body, /^This email does not include message content because your organization hides message content in email notifications\.\n/);
  assert.match(hidden.body, /View or reply in Acme:/);
  assert.ok(!hidden.html.includes("<p>x</p>"));
});

test("the digest: conversations with their first messages and the rest counted, new channels, or counts only", () => {
  const conversation = {
    channel: { name: "ops", url: `${SITE}/#narrow/channel/3-ops` },
    topic: { name: "deploy <now>", url: `${SITE}/#narrow/channel/3-ops/topic/deploy.20.3Cnow.3E` },
    messages: [{ sender: "Al", content: { html: "<div><p>go</p></div>", plain: "> go" } }],
    more: 1,
    participants: ["Al", "Bo"],
  };
  const email = digestEmail({ realmName: "Acme", realmUrl: SITE, content: { hot: [conversation], newChannels: [{ name: "new", url: `${SITE}/#narrow/channel/9-new` }] } });
  assert.equal(email.subject, "Digest for Acme");
  assert.match(email.body, /^ops > deploy <now>\nAl:\n> go\n\+ 1 more message by Al and Bo\.\n\n\*\* New channels \*\*\n {4}new\.\n/);
  assert.match(email.html, /&gt; <a href="[^"]+">deploy &lt;now&gt;<\/a>/);
  const counts = digestEmail({ realmName: "Acme", realmUrl: SITE, content: { hiddenBy: "realm", newMessages: 3, newChannels: 0 } });
  assert.match(counts.body, /^You have 3 new messages in Acme\.\n\nThis email does not include message content because your organization hides/);
});
