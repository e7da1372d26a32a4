/**
 * Linkifier patterns are written in Python's syntax (upstream validates them with re2): the
 * translation to JavaScript keeps their meaning, and a pattern with Python-only escapes links.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pythonPatternToJs } from "../../src/markdown/linkifiers.ts";
import { renderMessage, type RenderContext } from "../../src/markdown/render.ts";

function matches(pattern: string, text: string): string[] {
  return [...text.matchAll(new RegExp(pythonPatternToJs(pattern), "gu"))].map((m) => m[0]);
}

describe("pythonPatternToJs", () => {
  test("named groups and backreferences", () => {
    assert.equal(pythonPatternToJs("(?P<id>\\d+)-(?P=id)"), "(?<id>\\d+)-\\k<id>");
    assert.deepEqual(matches("(?P<id>\\d+)-(?P=id)", "12-12 12-13"), ["12-12"]);
  });

  test("punctuation escapes JavaScript's u mode refuses mean the character itself", () => {
    assert.deepEqual(matches("ZUL\\-(?P<id>\\d+)", "ZUL-12 ZULx3"), ["ZUL-12"]);
    assert.deepEqual(matches("\\#(?P<id>\\d+)\\:\\@", "#7:@ #8:"), ["#7:@"]);
    assert.deepEqual(matches("a\\ b\\'c\\\"", "a b'c\""), ["a b'c\""]);
    assert.deepEqual(matches("x\\é", "xé"), ["xé"]);
  });

  test("escapes JavaScript knows keep their meaning, inside and outside classes", () => {
    assert.deepEqual(matches("[a\\-z]+", "a-z-q"), ["a-z-"]);
    assert.deepEqual(matches("\\.\\*\\d\\w\\s", ".*1a "), [".*1a "]);
    assert.deepEqual(matches("[\\]x]+", "]x]y"), ["]x]"]);
  });

  test("\\A and \\Z anchor, and a class may open with a literal ]", () => {
    assert.deepEqual(matches("\\Aab", "abab"), ["ab"]);
    assert.deepEqual(matches("ab\\Z", "abab"), ["ab"]);
    assert.deepEqual(matches("[]a]+", "]a]b"), ["]a]"]);
    assert.deepEqual(matches("[^]a]+", "]bc]"), ["bc"]);
  });
});

describe("a linkifier with Python-only escapes renders links", () => {
  const context: RenderContext = {
    realmUrl: "https://chat.example.com",
    linkifiers: [{ pattern: "ZUL\\-(?P<id>\\d+)", url_template: "https://tracker.example.com/{id}" }],
  };
  test("ZUL\\-(?P<id>\\d+)", () => {
    const html = renderMessage("see ZUL-42 please", context).html;
    assert.equal(html, '<p>see <a href="https://tracker.example.com/42" title="https://tracker.example.com/42">ZUL-42</a> please</p>');
  });
});
