/**
 * Linkifier patterns are RE2 patterns (upstream compiles them with RE2): what RE2 refuses is
 * refused with RE2's wording, group names follow RE2, and matching keeps RE2's meaning
 * (Python-style escapes, `[]...]`, `\A`, `\z`) with upstream's boundaries around each match.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkLinkifierPattern, parseLinkifierPattern } from "../../src/markdown/linkifier-patterns.ts";
import { findLinkifierLinks } from "../../src/markdown/linkifiers.ts";
import { renderMessage, type RenderContext } from "../../src/markdown/render.ts";

function refusal(pattern: string): string {
  const parsed = parseLinkifierPattern(pattern);
  assert.ok("error" in parsed, `${pattern} should be refused`);
  return parsed.error;
}

function matches(pattern: string, text: string): string[] {
  return findLinkifierLinks(text, [{ pattern, url_template: "https://e.com/" }]).map((l) => l.text);
}

describe("checking patterns as RE2 does", () => {
  test("RE2's errors, after Zulip's prefix", () => {
    const cases: Array<[string, string]> = [
      ["(foo", "missing ): (foo"],
      ["foo)", "unexpected ): foo)"],
      ["ZUL-(?P<id>\\d????)", "bad repetition operator: ????"],
      ["ZUL-(?P<id>[0-9+)", "missing ]: [0-9+)"],
      ["(?P<id>\\d+)-\\1", "invalid escape sequence: \\1"],
      ["(?P<id>\\d+)-(?P=id)", "invalid perl operator: (?P"],
      ["(?=x)(?P<id>\\d+)", "invalid perl operator: (?="],
      ["(?<!x)(?P<id>\\d+)", "invalid perl operator: (?<!"],
      ["(?P<a-b>\\d+)", "invalid named capture group: (?P<a-b>"],
      ["(?P<>\\d+)", "invalid named capture group: (?P<>"],
      ["*(?P<id>\\d+)", "no argument for repetition operator: *"],
      ["(?P<id>\\d{1,1001})", "invalid repetition size: {1,1001}"],
      ["((a{100}){100})", "invalid repetition size: {100}"],
      ["[z-a]", "invalid character class range: z-a"],
      ["\\pX", "invalid character class range: \\pX"],
      ["a\\Z", "invalid escape sequence: \\Z"],
      ["a\\", "trailing \\"],
      ["(?:.*a){700}", "pattern too large - compile failed"],
    ];
    for (const [pattern, error] of cases) assert.equal(refusal(pattern), `Bad regular expression: ${error}`, pattern);
    assert.throws(() => checkLinkifierPattern("(foo"), { message: "Bad regular expression: missing ): (foo" });
  });

  test("at most 1,000 characters, counted as code points, checked first", () => {
    assert.equal(refusal("(".repeat(1001)), "Ensure this value has at most 1000 characters (it has 1001).");
    assert.equal(refusal("😀".repeat(1001)), "Ensure this value has at most 1000 characters (it has 1001).");
    assert.deepEqual(checkLinkifierPattern(`${"(?i)".repeat(249)}😀😀😀😀`), []);
    const started = performance.now();
    assert.equal(refusal("(".repeat(10 * 1024 * 1024)), "Ensure this value has at most 1000 characters (it has 10485760).");
    assert.ok(performance.now() - started < 2000);
  });

  test("group names: (?P<name>) and (?<name>), RE2's characters, the first group of a repeated name", () => {
    assert.deepEqual(checkLinkifierPattern("(?P<org>\\w+)/(?<repo>\\w+)#(?P<id>\\d+)"), ["org", "repo", "id"]);
    assert.deepEqual(checkLinkifierPattern("(?P<1d>\\d)(?P<ñ>x)(?P<a_b>y)"), ["1d", "ñ", "a_b"]);
    assert.deepEqual(checkLinkifierPattern("#(?P<id>\\d+)-(?P<id>[a-z]+)"), ["id"]);
    // Inside a class, \Q...\E or after a backslash, "(?P<x>" is not a group.
    assert.deepEqual(checkLinkifierPattern("[(?P<x>]\\Q(?P<y>\\E\\(?P<z>a\\)"), []);
    const [link] = findLinkifierLinks("see 12-ab", [{ pattern: "(?P<id>\\d+)-(?P<id>[a-z]+)", url_template: "https://e.com/{id}" }]);
    assert.equal(link.href, "https://e.com/12");
  });
});

describe("matching keeps RE2's meaning", () => {
  test("escaped punctuation is the character itself", () => {
    assert.deepEqual(matches("ZUL\\-(?P<id>\\d+)", "ZUL-12 ZULx3"), ["ZUL-12"]);
    assert.deepEqual(matches("\\#(?P<id>\\d+)\\:\\@", "#7:@ #8:"), ["#7:@"]);
    // Backtracking from "a-z-" (before a letter) to "a-z" (before "-").
    assert.deepEqual(matches("[a\\-z]+", "a-z-q"), ["a-z"]);
  });

  test("\\A, \\z, ^ and $ anchor at the text's ends; a class may open with a literal ]", () => {
    assert.deepEqual(matches("\\Aab", "ab ab"), ["ab"]);
    assert.deepEqual(matches("ab\\z", "ab ab"), ["ab"]);
    assert.deepEqual(matches("^#\\d+$", "#12"), ["#12"]);
    assert.deepEqual(matches("^#\\d+$", " #12"), []);
    assert.deepEqual(matches("[]a]+", "]a] b"), ["]a]"]);
    assert.deepEqual(matches("[^]a]+", "bc]"), ["bc"]);
  });

  test("upstream's boundaries: after the start, whitespace or '\"(,:<; not before a letter, digit or _", () => {
    assert.deepEqual(matches("#\\d+", "#1 (#2) '#3' x#4 #5a #6_ #7,#8:#9<"), ["#1", "#2", "#3", "#7", "#8", "#9"]);
    assert.deepEqual(matches("#\\d+", "\u00a0#1\u2003#2\u0085#3"), ["#1", "#2", "#3"]);
    // The last character of a match may be the boundary of the next one.
    assert.deepEqual(matches("#\\d+:", "#1:#2:"), ["#1:", "#2:"]);
  });

  test("leftmost-first, non-overlapping; astral characters count as one", () => {
    assert.deepEqual(matches("a|ab", "ab a"), ["ab", "a"]);
    assert.deepEqual(matches("😀(?P<id>.)", "😀é 😀𝐀"), ["😀é", "😀𝐀"]);
  });

  test("matches far into a long text, and long matches, are found", () => {
    const text = `${"word ".repeat(2000)}#99 ${"x".repeat(120)}`;
    assert.deepEqual(matches("#\\d+", text), ["#99"]);
    assert.deepEqual(matches("x+", text), ["x".repeat(120)]);
  });
});

describe("a linkifier with Python-style escapes renders links", () => {
  const context: RenderContext = {
    realmUrl: "https://chat.example.com",
    linkifiers: [{ pattern: "ZUL\\-(?P<id>\\d+)", url_template: "https://tracker.example.com/{id}" }],
  };
  test("ZUL\\-(?P<id>\\d+)", () => {
    const html = renderMessage("see ZUL-42 please", context).html;
    assert.equal(html, '<p>see <a href="https://tracker.example.com/42" title="https://tracker.example.com/42">ZUL-42</a> please</p>');
  });
});
