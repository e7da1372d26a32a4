/**
 * Slack's mrkdwn into Zulip Markdown (formats/slack/mrkdwn.ts), the cases upstream's
 * slack_message_conversion tests cover and the ones an export shows, and thread topic names
 * (formats/slack/thread-topics.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mrkdwnToMarkdown, mrkdwnToPlain } from "../../src/formats/slack/mrkdwn.ts";
import { MAX_TOPIC_LENGTH } from "../../src/formats/foreign/topic-names.ts";
import { firstLine, ThreadTopics } from "../../src/formats/slack/thread-topics.ts";

const names = { person: (id: string) => ({ U1: "Jane Doe", U2: "Jon" })[id] ?? null, channel: (id: string) => ({ C1: "general" })[id] ?? null };
const md = (text: string) => mrkdwnToMarkdown(text, names);

test("emphasis: bold, italics and strikethrough at word edges only", () => {
  assert.equal(md("*bold* _italic_ ~strike~"), "**bold** *italic* ~~strike~~");
  assert.equal(md("(*bold*), _it_."), "(**bold**), *it*.");
  assert.equal(md("snake_case_name and 2*3*4 and file_name.txt"), "snake_case_name and 2*3*4 and file_name.txt");
  assert.equal(md("* not bold *"), "* not bold *");
  assert.equal(md("~*_all three_*~"), "~~***all three***~~");
});

test("links: labelled, bare, mailto; emphasis around a link; URLs keep their underscores", () => {
  assert.equal(md("<https://chat.zulip.org/|Text with a link>"), "[Text with a link](https://chat.zulip.org/)");
  assert.equal(md("*<https://chat.zulip.org/|Text>*"), "**[Text](https://chat.zulip.org/)**");
  assert.equal(md("<https://example.com/a_b_c>"), "https://example.com/a_b_c");
  assert.equal(md("<mailto:a@b.com|a@b.com>"), "[a@b.com](mailto:a@b.com)");
  assert.equal(md("<mailto:a@b.com>"), "a@b.com");
  assert.equal(md("<https://x.org/p|[1] label>"), "[\\[1\\] label](https://x.org/p)");
});

test("people, channels and Slack's special mentions", () => {
  assert.equal(md("<@U1>: hey <@U2|jon>"), "@**Jane Doe|U1**: hey @**Jon|U2**");
  assert.equal(md("<@U9> <@U9|ghost>"), "@U9 @ghost");
  assert.equal(md("<#C1|general> <#C1> <#C7|old>"), "#**general** #**general** #**old**");
  assert.equal(md("<!here> <!channel> <!everyone>"), "@**all** @**all** @**all**");
  assert.equal(md("<!subteam^S12|@devs> <!date^1392734382^{date}|Feb 18, 2014>"), "@devs Feb 18, 2014");
});

test("code stays literal: spans and blocks, fences on lines of their own", () => {
  assert.equal(md("run `*x* <y> &amp;`"), "run `*x* <y> &`");
  assert.equal(md("```const a = b && c < d;```"), "```\nconst a = b && c < d;\n```");
  assert.equal(md("see ```\n<https://x.org>\n``` ok"), "see \n```\nhttps://x.org\n```\n ok");
  assert.equal(md("```a``` and ```b```"), "```\na\n```\n and \n```\nb\n```");
});

test("escapes, quotes, bullets and emoji skin tones", () => {
  assert.equal(md("a &lt;b&gt; &amp; c"), "a <b> & c");
  assert.equal(md("&gt; quoted"), "> quoted");
  assert.equal(md("first\n&gt;&gt;&gt; quoted\nto the end"), "first\n> quoted\n> to the end");
  assert.equal(md("• one\n• two"), "- one\n- two");
  assert.equal(md(":thumbsup::skin-tone-3: :tada:"), ":thumbsup: :tada:");
});

test("plain text for topic names: names, labels, no markup", () => {
  assert.equal(mrkdwnToPlain("<@U2> please *reply* to <https://x.org|this>", names), "@Jon please reply to this");
  assert.equal(mrkdwnToPlain("<!channel> `code`", names), "@channel code");
});

test("thread topics: first line, cut to 60 characters at a word, unique per channel without case", () => {
  assert.equal(firstLine("\n  first   line \nsecond"), "first line");
  assert.equal(firstLine(">\n> quoted  words"), "quoted words");
  const long = "word ".repeat(30);
  const topics = new ThreadTopics();
  assert.equal(topics.name("C1", "1.0", "Deploy"), "Deploy");
  assert.equal(topics.name("C1", "2.0", "deploy"), "deploy (2)");
  assert.equal(topics.name("C2", "3.0", "Deploy"), "Deploy");
  assert.equal(topics.name("C1", "1.0", "other"), "Deploy");
  assert.equal(topics.name("C1", "4.0", "imported from Slack"), "imported from Slack (2)");
  assert.equal(topics.name("C1", "1434139102.000002", ""), "thread of 2015-06-12 19:58");
  const cut = topics.name("C1", "5.0", long);
  assert.ok([...cut].length <= MAX_TOPIC_LENGTH && cut.endsWith("…"), cut);
  const again = topics.name("C1", "6.0", long);
  assert.ok([...again].length <= MAX_TOPIC_LENGTH && again.endsWith("… (2)"), again);
});
