/** src/markdown/html-diff.ts: word-level highlighting, and output that never breaks the markup. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { highlightHtmlDifferences } from "../../src/markdown/html-diff.ts";

const ins = (text: string) => `<span class="highlight_text_inserted">${text}</span>`;
const del = (text: string) => `<span class="highlight_text_deleted">${text}</span>`;

/** Tag names in document order, with span tags removed: the structure the diff must keep. */
function structure(html: string): string[] {
  return [...html.matchAll(/<\/?([a-z0-9]+)[^>]*>/g)].map((m) => m[0]).filter((t) => !/^<\/?span/.test(t));
}

/** Checks that every `<` opens a complete tag and that tags nest properly. */
function assertWellFormed(html: string): void {
  const stack: string[] = [];
  const VOID = new Set(["br", "hr", "img", "input", "meta", "link"]);
  const stripped = html.replace(/<(\/?)([a-z0-9]+)(?:\s(?:[^>"']|"[^"]*"|'[^']*')*)?>/g, (_m, close: string, name: string) => {
    if (VOID.has(name)) return "";
    if (close === "") stack.push(name);
    else assert.equal(stack.pop(), name, `unbalanced </${name}> in ${html}`);
    return "";
  });
  assert.deepEqual(stack, [], `unclosed tags in ${html}`);
  assert.ok(!stripped.includes("<") && !stripped.includes(">"), `stray angle bracket in ${html}`);
}

describe("highlightHtmlDifferences", () => {
  test("identical documents are wrapped unchanged", () => {
    assert.equal(highlightHtmlDifferences("<p>same words</p>", "<p>same words</p>"), "<div><p>same words</p></div>");
  });

  test("a replaced word shows the new word inserted, then the old one deleted", () => {
    assert.equal(highlightHtmlDifferences("<p>Hello!</p>", "<p>Howdy!</p>"), `<div><p>${ins("Howdy!")} ${del("Hello!")}</p></div>`);
  });

  test("only the changed words are highlighted", () => {
    assert.equal(
      highlightHtmlDifferences("<p>the quick brown fox</p>", "<p>the slow brown fox jumps</p>"),
      `<div><p>the ${ins("slow ")}${del("quick ")}brown fox ${ins("jumps")}</p></div>`,
    );
  });

  test("inserted words at the start and deleted words at the end", () => {
    assert.equal(highlightHtmlDifferences("<p>one two</p>", "<p>zero one</p>"), `<div><p>${ins("zero ")}one ${del("two")}</p></div>`);
  });

  test("a new paragraph is inserted inside its own markup", () => {
    assert.equal(
      highlightHtmlDifferences("<p>first</p>", "<p>first</p>\n<p>second line</p>"),
      `<div><p>first</p>\n<p>${ins("second line")}</p></div>`,
    );
  });

  test("a removed paragraph keeps no tags of its own", () => {
    const out = highlightHtmlDifferences("<p>keep</p>\n<p>gone now</p>", "<p>keep</p>");
    assert.equal(out, `<div><p>keep ${del("gone now")}</p></div>`);
  });

  test("formatting added around the same words is not a text change", () => {
    assert.equal(highlightHtmlDifferences("<p>bold word</p>", "<p><strong>bold</strong> word</p>"), "<div><p><strong>bold</strong> word</p></div>");
  });

  test("entities stay whole and attribute values with angle brackets are kept intact", () => {
    const before = '<p>a &amp; b</p>';
    const after = '<p><a href="https://x.test/?q=<b>" title="1 > 0">a</a> &amp; c</p>';
    const out = highlightHtmlDifferences(before, after);
    assert.ok(out.includes("&amp;"));
    assert.ok(out.includes('title="1 > 0"'));
    assert.equal(out, `<div><p><a href="https://x.test/?q=<b>" title="1 > 0">a</a> &amp; ${ins("c")} ${del("b")}</p></div>`);
  });

  test("code blocks diff by words and keep their whitespace", () => {
    const before = '<div class="codehilite"><pre><span></span><code>x = 1\ny = 2\n</code></pre></div>';
    const after = '<div class="codehilite"><pre><span></span><code>x = 1\ny = 3\n</code></pre></div>';
    const out = highlightHtmlDifferences(before, after);
    assert.equal(out, `<div><div class="codehilite"><pre><span></span><code>x = 1\ny = ${ins("3\n")}${del("2\n")}</code></pre></div></div>`);
  });

  test("an empty old or new document", () => {
    assert.equal(highlightHtmlDifferences("", "<p>new</p>"), `<div><p>${ins("new")}</p></div>`);
    assert.equal(highlightHtmlDifferences("<p>old</p>", ""), `<div>${del("old")}</div>`);
  });

  test("random edits never break the markup and keep the new document's structure", () => {
    const words = ["alpha", "beta", "&amp;", "gamma", "<strong>delta</strong>", "<em>eps</em>", "<code>x&lt;y</code>", '<a href="/#narrow">link</a>', "<br>"];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const doc = () => {
      const paragraphs: string[] = [];
      for (let p = 0; p <= rand(3); p += 1) {
        const inner = Array.from({ length: rand(8) }, () => words[rand(words.length)]).join(" ");
        paragraphs.push(rand(4) === 0 ? `<ul>\n<li>${inner}</li>\n</ul>` : `<p>${inner}</p>`);
      }
      return paragraphs.join("\n");
    };
    for (let round = 0; round < 300; round += 1) {
      const before = doc();
      const after = doc();
      const out = highlightHtmlDifferences(before, after);
      assertWellFormed(out);
      assert.deepEqual(structure(out), ["<div>", ...structure(after), "</div>"], `${before} -> ${after}`);
      const plain = (html: string) => html.replace(/<[^>]*>/g, "").replace(/\s+/g, "");
      const deletedText = [...out.matchAll(/<span class="highlight_text_deleted">([^<]*)<\/span>/g)].map((m) => m[1]).join("");
      assert.equal(plain(out.replace(/<span class="highlight_text_deleted">[^<]*<\/span>/g, "")), plain(after));
      assert.ok(plain(deletedText).length <= plain(before).length);
    }
  });
});
