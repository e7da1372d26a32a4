/** src/formats/mattermost/: Mattermost markup in Zulip Markdown (markup.ts, emoji-names.ts) and thread topic names (topics.ts). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { zulipEmojiName } from "../../src/formats/mattermost/emoji-names.ts";
import { convertMarkup, type MarkupContext } from "../../src/formats/mattermost/markup.ts";
import { truncateTopic } from "../../src/formats/foreign/topic-names.ts";
import { ChannelTopics, CHANNEL_TOPIC, plainWords } from "../../src/formats/mattermost/topics.ts";

const ctx: MarkupContext = {
  people: new Map([["ron", "Ron Weasley"], ["harry", "Harry Potter"], ["h.granger", "Hermione Granger"]]),
  channels: new Map([["town-square", "Town Square"], ["dumbledores-army", "Dumbledores army"]]),
  customEmoji: new Set(["peerdium", "party-parrot"]),
};
const md = (text: string) => convertMarkup(text, ctx);

describe("Mattermost markup", () => {
  test("mentions of people become placeholders with the username as key; unknown names stay text", () => {
    assert.equal(md("@ron Welcome mate!"), "@**Ron Weasley|ron** Welcome mate!");
    assert.equal(md("thanks @harry, and @h.granger."), "thanks @**Harry Potter|harry**, and @**Hermione Granger|h.granger**.");
    assert.equal(md("(@Ron)"), "(@**Ron Weasley|ron**)");
    assert.equal(md("@draco says hi"), "@draco says hi");
    assert.equal(md("mail ron@zulip.com or see https://x.test/@ron"), "mail ron@zulip.com or see https://x.test/@ron");
  });

  test("@all is Zulip's @all; @channel and @here are @channel", () => {
    assert.equal(md("@all meeting"), "@**all** meeting");
    assert.equal(md("@channel and @here: look"), "@**channel** and @**channel**: look");
  });

  test("~channel links name the team's channels by their imported names", () => {
    assert.equal(md("see ~dumbledores-army and ~town-square."), "see #**Dumbledores army** and #**Town Square**.");
    assert.equal(md("~unknown-place stays"), "~unknown-place stays");
    assert.equal(md("~~struck~~ text"), "~~struck~~ text");
  });

  test("emoji get Zulip's names; custom emoji keep theirs", () => {
    assert.equal(md(":smile: :+1: :-1: :rofl:"), ":big_smile: :+1: :-1: :rofl:");
    assert.equal(md(":man-running: :flag-de: :flag-nz: :peerdium: :party-parrot:"), ":man_running: :de: :flag_nz: :peerdium: :party-parrot:");
    assert.equal(zulipEmojiName("cat", new Set()), "cat_face");
    assert.equal(zulipEmojiName("world_map", new Set()), "world_map");
  });

  test("images become links; underscore emphasis becomes Zulip's", () => {
    assert.equal(md("![a cat](https://x.test/cat.png)"), "[a cat](https://x.test/cat.png)");
    assert.equal(md("this is _really_ __important__"), "this is *really* **important**");
    assert.equal(md("snake_case_name stays"), "snake_case_name stays");
  });

  test("code is left as written", () => {
    assert.equal(md("`@ron :smile:` and @ron"), "`@ron :smile:` and @**Ron Weasley|ron**");
    const fenced = "before @ron\n```\n@ron :smile: _x_\n```\nafter ~town-square";
    assert.equal(md(fenced), "before @**Ron Weasley|ron**\n```\n@ron :smile: _x_\n```\nafter #**Town Square**");
    assert.equal(md("``a ` @ron``"), "``a ` @ron``");
    assert.equal(md("an unclosed ` tick @ron"), "an unclosed ` tick @**Ron Weasley|ron**");
  });
});

describe("thread topics", () => {
  test("a thread is named from its root's words, without markup", () => {
    const topics = new ChannelTopics();
    assert.equal(topics.threadTopic("**Release** of @**Ron Weasley|ron**'s [notes](https://x.test)\n\nmore"), "Release of @Ron Weasley's notes more");
    assert.equal(plainWords("> quoted\n- item"), "quoted item");
  });

  test("long roots are cut at a word within 60 characters; names are unique without case", () => {
    const long = "This thread is about the quidditch practice schedule for the whole coming season";
    const cut = truncateTopic(long);
    assert.ok([...cut].length <= 60 && cut.endsWith("…") && long.startsWith(cut.slice(0, -1)), cut);
    const topics = new ChannelTopics();
    const first = topics.threadTopic(long);
    const second = topics.threadTopic(long);
    assert.equal(first, cut);
    assert.ok(second.endsWith(" (2)") && [...second].length <= 60, second);
    assert.equal(topics.threadTopic("hello"), "hello");
    assert.equal(topics.threadTopic("HELLO"), "HELLO (2)");
    assert.equal(topics.threadTopic(CHANNEL_TOPIC), `${CHANNEL_TOPIC} (2)`);
    assert.equal(topics.threadTopic(""), "thread");
  });
});
