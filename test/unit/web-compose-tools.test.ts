/**
 * The web compose box's pure parts: the formatting of a selection (wrapping and unwrapping,
 * links, blocks, lists), the formatting keys, the conversation keys drafts are saved under, and
 * the suggested "Send later" times.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatKey, formatText, type Format } from "../../web/src/state/compose-format.ts";
import { directDraftKey, directKeyUserIds, topicDraftKey, unresolvedDraftKey } from "../../web/src/state/drafts.ts";
import { sendLaterChoices, timeProblem } from "../../web/src/state/scheduled.ts";

/** Applies a format to `text`, where `[` and `]` mark the selection; returns the result marked the same way. */
function format(marked: string, kind: Format): string {
  const start = marked.indexOf("[");
  const end = marked.indexOf("]") - 1;
  const edit = formatText(marked.replace("[", "").replace("]", ""), start, end, kind);
  return `${edit.text.slice(0, edit.start)}[${edit.text.slice(edit.start, edit.end)}]${edit.text.slice(edit.end)}`;
}

describe("web compose formatting", () => {
  test("inline marks wrap the selection, and come off a selection they already wrap", () => {
    assert.equal(format("make [loud] now", "bold"), "make **[loud]** now");
    assert.equal(format("make **[loud]** now", "bold"), "make [loud] now");
    assert.equal(format("make [**loud**] now", "bold"), "make [loud] now");
    assert.equal(format("make **[loud]** now", "italic"), "make ***[loud]*** now", "bold is not italic");
    assert.equal(format("make ***[loud]*** now", "italic"), "make **[loud]** now");
    assert.equal(format("make *[loud]* now", "bold"), "make ***[loud]*** now");
    assert.equal(format("old [news]", "strikethrough"), "old ~~[news]~~");
    assert.equal(format("x[]", "bold"), "x**[]**", "an empty selection gets the marks, the caret between them");
    assert.equal(format("run [ls -la]", "code"), "run `[ls -la]`");
  });

  test("links: the selection is the text, 'url' selected to type over; a selected URL is the target", () => {
    assert.equal(format("see [the docs]", "link"), "see [the docs]([url])");
    assert.equal(format("see [https://example.com/a]", "link"), "see [[]](https://example.com/a)");
  });

  test("blocks and lists take whole lines", () => {
    assert.equal(format("a\n[b\nc]\nd", "code"), "a\n```\n[b\nc]\n```\nd");
    assert.equal(format("intro\nqu[ot]ed line\nafter", "quote"), "intro\n```quote\n[quoted line]\n```\nafter");
    assert.equal(format("say []", "quote"), "say \n```quote\n[]\n```");
    assert.equal(format("[milk\neggs]", "bulleted"), "[- milk\n- eggs]");
    assert.equal(format("[- milk\n- eggs]", "bulleted"), "[milk\neggs]");
    assert.equal(format("[- milk\n- eggs]", "numbered"), "[1. milk\n2. eggs]");
    assert.equal(format("[1. milk\n2. eggs]", "numbered"), "[milk\neggs]");
    assert.equal(format("first\n[]", "bulleted"), "first\n- []");
  });

  test("keys: Ctrl or Cmd with B, I, Shift+L", () => {
    const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }>) => formatKey({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
    assert.equal(key("b", { ctrlKey: true }), "bold");
    assert.equal(key("i", { metaKey: true }), "italic");
    assert.equal(key("L", { ctrlKey: true, shiftKey: true }), "link");
    assert.equal(key("b", {}), null);
    assert.equal(key("b", { ctrlKey: true, altKey: true }), null);
    assert.equal(key("l", { ctrlKey: true }), null, "Ctrl+L stays the browser's");
  });
});

describe("web draft keys and send-later times", () => {
  test("a conversation's key is the server draft's: topics ignore case, direct ones drop oneself", () => {
    assert.equal(topicDraftKey(4, " Plans "), topicDraftKey(4, "plans"));
    assert.equal(directDraftKey([9, 3, 7], 9), "d3,7");
    assert.equal(directDraftKey([9], 9), "d9", "a note to oneself");
    assert.deepEqual(directKeyUserIds("d3,7"), [3, 7]);
    assert.equal(directKeyUserIds(unresolvedDraftKey("Nobody")), null);
    assert.equal(directKeyUserIds(topicDraftKey(4, "x")), null);
  });

  test("upstream's suggestions: today's while far enough ahead, tomorrow's, Monday unless it is tomorrow", () => {
    // The day's word and the hour (the time's wording is the browser locale's).
    const labels = (d: Date) => sendLaterChoices(d, true).map((c) => `${c.label.split(" at ")[0]} ${new Date(c.at * 1000).getHours()}`);
    // Friday 28 November 2025, 10:00 local time.
    assert.deepEqual(labels(new Date(2025, 10, 28, 10, 0)), ["Today 16", "Tomorrow 9", "Tomorrow 16", "Monday 9"]);
    assert.deepEqual(labels(new Date(2025, 10, 28, 15, 57)), ["Tomorrow 9", "Tomorrow 16", "Monday 9"], "4 PM is less than 5 minutes away");
    // Sunday: Monday is tomorrow.
    assert.deepEqual(labels(new Date(2025, 10, 30, 7, 0)), ["Today 9", "Today 16", "Tomorrow 9", "Tomorrow 16"]);
    const monday = sendLaterChoices(new Date(2025, 10, 28, 10, 0), false)[3];
    assert.equal(monday.at, new Date(2025, 11, 1, 9, 0).getTime() / 1000);
    const now = Date.UTC(2025, 0, 1);
    assert.equal(timeProblem(now / 1000 + 300, now), null);
    assert.match(timeProblem(now / 1000 + 299, now) ?? "", /at least 5 minutes/);
    assert.match(timeProblem(Number.NaN, now) ?? "", /Choose a date/);
  });
});
