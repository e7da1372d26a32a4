/** src/markdown API: mention candidates and the flags renderMessage reports. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mentionCandidates, renderMessage, topicKey, type RenderContext } from "../../src/markdown/render.ts";

const CONTEXT: RenderContext = {
  realmUrl: "https://chat.example.com",
  users: [
    { id: 10, full_name: "King Hamlet", email: "hamlet@example.com" },
    { id: 11, full_name: "Cordelia, Lear's daughter", email: "cordelia@example.com" },
    { id: 12, full_name: "Gone User", email: "gone@example.com", is_active: false },
  ],
  groups: [
    { id: 20, name: "hamletcharacters", deactivated: false, can_mention: true },
    { id: 21, name: "leadership", deactivated: false, can_mention: false },
    { id: 22, name: "retired", deactivated: true, can_mention: true },
  ],
  channels: [{ id: 1, name: "Denmark" }],
  topicMessageIds: new Map([[topicKey(1, "some topic"), 99]]),
};

describe("mentionCandidates", () => {
  test("collects names, ids, groups, channels, topics and wildcards", () => {
    const c = mentionCandidates("@**King Hamlet** @_**Zoe|7** @**|8** @*support* @_*leads* #**Denmark** #**social>lunch@5** @**all** hi@**nope**");
    assert.deepEqual(c.userNames.sort(), ["King Hamlet", "all"]);
    assert.deepEqual(c.userIds.sort(), [7, 8]);
    assert.deepEqual(c.groupNames.sort(), ["leads", "support"]);
    assert.deepEqual(c.channelNames.sort(), ["Denmark", "social"]);
    assert.deepEqual(c.topics, [{ channelName: "social", topic: "lunch" }]);
    assert.deepEqual(c.wildcards, { channel: true, topic: false });
  });

  test("silent wildcards are not wildcards", () => {
    assert.deepEqual(mentionCandidates("@_**all** @_**topic**").wildcards, { channel: false, topic: false });
    assert.deepEqual(mentionCandidates("@**topic**").wildcards, { channel: false, topic: true });
  });
});

describe("renderMessage mentions", () => {
  test("user mentions by name (case-insensitive) and by id notify", () => {
    const r = renderMessage("hi @**king hamlet** and @**Cordelia, Lear's daughter|11**", CONTEXT);
    assert.equal(
      r.html,
      '<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span> and <span class="user-mention" data-user-id="11">@Cordelia, Lear\'s daughter</span></p>',
    );
    assert.deepEqual(r.mentionedUserIds.sort(), [10, 11]);
  });

  test("silent mentions render without @ and do not notify", () => {
    const r = renderMessage("@_**King Hamlet** @_*hamletcharacters*", CONTEXT);
    assert.equal(r.html, '<p><span class="user-mention silent" data-user-id="10">King Hamlet</span> <span class="user-group-mention silent" data-user-group-id="20">hamletcharacters</span></p>');
    assert.deepEqual(r.mentionedUserIds, []);
    assert.deepEqual(r.mentionedGroupIds, []);
  });

  test("name|id must match; unknown names stay as upstream renders them", () => {
    const r = renderMessage("@**Someone Else|10** @**Nobody**", CONTEXT);
    assert.equal(r.html, "<p>@<strong>Someone Else|10</strong> @<strong>Nobody</strong></p>");
    assert.deepEqual(r.mentionedUserIds, []);
  });

  test("deactivated users render but are not notified", () => {
    const r = renderMessage("@**Gone User**", CONTEXT);
    assert.equal(r.html, '<p><span class="user-mention" data-user-id="12">@Gone User</span></p>');
    assert.deepEqual(r.mentionedUserIds, []);
  });

  test("wildcards set the channel/topic flags; silent ones do not", () => {
    for (const name of ["all", "everyone", "channel", "stream"]) {
      const r = renderMessage(`@**${name}**`, CONTEXT);
      assert.equal(r.html, `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span></p>`);
      assert.deepEqual(r.wildcard, { channel: true, topic: false });
    }
    const topic = renderMessage("@**topic**", CONTEXT);
    assert.equal(topic.html, '<p><span class="topic-mention">@topic</span></p>');
    assert.deepEqual(topic.wildcard, { channel: false, topic: true });
    const silent = renderMessage("@_**all** @_**topic**", CONTEXT);
    assert.equal(silent.html, '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> <span class="topic-mention silent">topic</span></p>');
    assert.deepEqual(silent.wildcard, { channel: false, topic: false });
  });

  test("group mentions: notified, forbidden ones reported, deactivated ones plain", () => {
    const r = renderMessage("@*hamletcharacters* @*leadership* @*retired*", CONTEXT);
    assert.equal(
      r.html,
      '<p><span class="user-group-mention" data-user-group-id="20">@hamletcharacters</span> <span class="user-group-mention" data-user-group-id="21">@leadership</span> @<em>retired</em></p>',
    );
    assert.deepEqual(r.mentionedGroupIds.sort(), [20, 21]);
    assert.deepEqual(r.forbiddenGroupMentions, [{ id: 21, name: "leadership" }]);
    assert.deepEqual(renderMessage("@_*leadership*", CONTEXT).forbiddenGroupMentions, []);
  });

  test("mentions inside code are not mentions", () => {
    const r = renderMessage("`@**King Hamlet**`\n```\n@**all**\n```", CONTEXT);
    assert.deepEqual(r.mentionedUserIds, []);
    assert.deepEqual(r.wildcard, { channel: false, topic: false });
  });
});

describe("renderMessage links and flags", () => {
  test("channel, topic and message links", () => {
    const r = renderMessage("#**Denmark** #**Denmark>some topic** #**Denmark>other.topic** #**Denmark>x@5** #**Nowhere**", CONTEXT);
    assert.equal(
      r.html,
      '<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-Denmark">#Denmark</a> ' +
        '<a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Denmark/topic/some.20topic/with/99">#Denmark &gt; some topic</a> ' +
        '<a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Denmark/topic/other.2Etopic">#Denmark &gt; other.topic</a> ' +
        '<a class="message-link" href="/#narrow/channel/1-Denmark/topic/x/near/5">#Denmark &gt; x @ 💬</a> ' +
        "#<strong>Nowhere</strong></p>",
    );
  });

  test("/me messages", () => {
    assert.equal(renderMessage("/me waves", CONTEXT).isMeMessage, true);
    assert.equal(renderMessage("/me", CONTEXT).isMeMessage, false);
    assert.equal(renderMessage("hi /me waves", CONTEXT).isMeMessage, false);
  });

  test("links, uploads and images", () => {
    const plain = renderMessage("no links here", CONTEXT);
    assert.deepEqual([plain.hasLink, plain.hasImage, plain.hasAttachment], [false, false, false]);
    const r = renderMessage("see [file](/user_uploads/2/ab/report.pdf) and https://chat.example.com/user_uploads/2/cd/pic.png", CONTEXT);
    assert.deepEqual([r.hasLink, r.hasImage, r.hasAttachment], [true, true, true]);
    assert.deepEqual(r.linkedUploadPaths.sort(), ["2/ab/report.pdf", "2/cd/pic.png"]);
    assert.match(r.html, /<div class="message_inline_image"><a href="https:\/\/chat.example.com\/user_uploads\/2\/cd\/pic.png"><img src="\/user_uploads\/2\/cd\/pic.png"><\/a><\/div>$/);
    const external = renderMessage("https://example.com/a.png", CONTEXT);
    assert.deepEqual([external.hasLink, external.hasImage], [true, false], "no camo configured: no external preview");
  });

  test("linkifiers expand RFC 6570 templates and carry a title", () => {
    const ctx: RenderContext = { ...CONTEXT, linkifiers: [{ pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" }] };
    const r = renderMessage("see #1234 and x#5 and #12ab", ctx);
    assert.equal(r.html, '<p>see <a href="https://trac.example.com/ticket/1234" title="https://trac.example.com/ticket/1234">#1234</a> and x#5 and #12ab</p>');
    assert.equal(r.hasLink, true);
  });

  test("timestamps", () => {
    assert.equal(renderMessage("<time:2024-03-01T10:00:00+01:00>", CONTEXT).html, '<p><time datetime="2024-03-01T09:00:00Z">2024-03-01T10:00:00+01:00</time></p>');
  });

  test("realm and unicode emoji", () => {
    const ctx: RenderContext = { ...CONTEXT, realmEmoji: [{ name: "parrot", source_url: "/user_avatars/1/emoji/parrot.gif", deactivated: false }] };
    assert.equal(
      renderMessage(":parrot: 👍", ctx).html,
      '<p><img alt=":parrot:" class="emoji" src="/user_avatars/1/emoji/parrot.gif" title="parrot"> <span aria-label="+1" class="emoji emoji-1f44d" role="img" title="+1">:+1:</span></p>',
    );
  });
});
