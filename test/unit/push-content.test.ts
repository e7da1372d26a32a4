/** The plain text of a phone notification (present/push-content.ts), from what our renderer makes of Markdown. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMessage, type RenderContext } from "../../src/markdown/render.ts";
import { mentionsIn, pushText, truncatePushText } from "../../src/present/push-content.ts";

const SITE = "https://chat.example.com";
const CONTEXT: RenderContext = { realmUrl: SITE };
const text = (markdown: string) => pushText(renderMessage(markdown, CONTEXT).html, SITE);

test("inline markup goes, its words stay; emoji become their characters", () => {
  assert.equal(text("**bold** and *it* and `code`"), "bold and it and code");
  assert.equal(text("hi :smile: :+1:"), "hi 🙂 👍");
  assert.equal(text("a [link](https://example.com) here"), "a link here");
});

test("paragraphs and lists keep their lines; ordered lists are numbered from their start", () => {
  assert.equal(text("one\n\ntwo"), "one\ntwo");
  assert.equal(text("3. c\n4. d"), "3. c\n4. d");
  assert.match(text("- x\n- y"), /x\s*\n\s*y/);
  assert.equal(text("1. a\n    1. b"), "1. a\n  1. b");
});

test("a quote alone is shown as quoted lines; quotes next to new words collapse to […]", () => {
  assert.equal(text("> quoted words"), "> quoted words\n");
  assert.equal(text("> old stuff\n> more\n\nmy answer"), "[…]\nmy answer");
});

test("a spoiler shows its header and (…), never its content", () => {
  const out = text("```spoiler Plot\nthe butler did it\n```");
  assert.ok(out.startsWith("Plot (…)"), out);
  assert.ok(!out.includes("butler"));
});

test("TeX shows as its source", () => {
  assert.equal(text("area $$\\pi r^2$$"), "area $$\\pi r^2$$");
});

test("HTML in user text stays text", () => {
  assert.equal(text("<b>not bold</b> <img src=x onerror=alert(1)>"), "<b>not bold</b> <img src=x onerror=alert(1)>");
});

test("truncation: 200 characters (code points), then …", () => {
  assert.equal(truncatePushText("x".repeat(200)), "x".repeat(200));
  assert.equal(truncatePushText("x".repeat(201)), `${"x".repeat(200)}…`);
  assert.equal(truncatePushText("😄".repeat(201)), `${"😄".repeat(200)}…`);
});

test("mentionsIn: named users and groups, never silent ones", () => {
  const html = '<p><span class="user-mention" data-user-id="4">@Ann</span> <span class="user-mention silent" data-user-id="5">Bo</span> <span class="user-group-mention" data-user-group-id="9">@ops</span></p>';
  const found = mentionsIn(html);
  assert.deepEqual([...found.userIds], [4]);
  assert.deepEqual(found.groupIds, [9]);
});
