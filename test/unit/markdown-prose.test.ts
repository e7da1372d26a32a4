/**
 * renderMessage's plain-prose shortcut (src/markdown/render.ts) must answer exactly what the full
 * markdown-it renderer answers, for prose it takes and for near-misses it must leave alone.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { renderMarkdown, renderMessage, type RenderContext } from "../../src/markdown/render.ts";

const CONTEXT: RenderContext = { realmUrl: "https://chat.example.com", translateEmoticons: true };

/** A seeded PRNG (mulberry32), so a failure names a reproducible input. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// What the shortcut takes (about a quarter of such lines pass its test), and the same with every
// character near its edge: digits that start lists, periods that make domains, emoticon and
// Markdown punctuation, entities, combining marks.
const PROSE = ["hello", "World", "é", "straße", "中文", "x", "1", "42", " ", " ", " ", ",", ".", "?", "!", "'", "\u00bd"];
const NEAR = [...PROSE, ":", ")", "(", "-", "*", "_", "#", "@", "/", "<", "&", "\u0301", "example", "com", "\t"];

function lines(pieces: readonly string[], seed: number, count: number): string[] {
  const random = prng(seed);
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(random() * 12);
    let line = "";
    for (let k = 0; k < length; k++) line += pieces[Math.floor(random() * pieces.length)];
    return line;
  });
}

describe("plain-prose rendering shortcut", () => {
  test("agrees with the full renderer on 20,000 generated lines", () => {
    for (const line of [...lines(PROSE, 7, 10_000), ...lines(NEAR, 8, 10_000)]) {
      assert.deepEqual(renderMessage(line, CONTEXT), renderMarkdown(line, CONTEXT), JSON.stringify(line));
    }
  });

  test("agrees on the lines at its edges", () => {
    const lines = [
      "hello world",
      "Hello, world! Is it fine? It's fine.",
      "1. first",
      "1 apple",
      "e.g. this",
      "see example.com now",
      "end with a period.",
      "two  spaces",
      "trailing space ",
      " leading space",
      "    indented code",
      "'quoted'",
      "caf\u00e9 na\u0301ive",
      "smile :) please",
      "I <3 it",
      "8) cool",
      "/me waves",
      "ok.",
    ];
    for (const line of lines) assert.deepEqual(renderMessage(line, CONTEXT), renderMarkdown(line, CONTEXT), JSON.stringify(line));
  });

  test("prose renders as one escaped paragraph with nothing to report", () => {
    assert.deepEqual(renderMessage("Hello, world! It's fine.", CONTEXT), {
      html: "<p>Hello, world! It's fine.</p>",
      mentionedUserIds: [],
      mentionedGroupIds: [],
      forbiddenGroupMentions: [],
      wildcard: { channel: false, topic: false },
      isMeMessage: false,
      hasLink: false,
      hasImage: false,
      hasAttachment: false,
      linkedUploadPaths: [],
    });
  });

  test("a realm with linkifiers gets every line through them", () => {
    const context: RenderContext = { ...CONTEXT, linkifiers: [{ pattern: "hello", url_template: "https://example.com/hi" }] };
    const html = renderMessage("hello world", context).html;
    assert.equal(html, renderMarkdown("hello world", context).html);
    assert.match(html, /<a href="https:\/\/example.com\/hi"/);
  });
});
