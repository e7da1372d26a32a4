/** src/narrow/highlight.ts: highlight spans around exactly the matched words, HTML left intact. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { escapeTopic, highlightHtml, searchFields, searchMatcher } from "../../src/narrow/highlight.ts";
import { parseSearch } from "../../src/model/search-words.ts";

const H = (w: string) => `<span class="highlight">${w}</span>`;

describe("highlighting", () => {
  const matcher = (q: string) => searchMatcher(parseSearch([q]));

  test("wraps every matching word, case-insensitively, and nothing else", () => {
    assert.equal(highlightHtml("<p>Hello world, hello again</p>", matcher("hello")), `<p>${H("Hello")} world, ${H("hello")} again</p>`);
    assert.equal(highlightHtml("<p>helloworld hello</p>", matcher("hello")), `<p>helloworld ${H("hello")}</p>`);
  });

  test("never touches tags, attributes or character references", () => {
    const html = '<p><a href="https://example.com/link" title="link">link</a> &amp; amp &lt;b&gt;</p>';
    assert.equal(highlightHtml(html, matcher("link amp b")), `<p><a href="https://example.com/link" title="link">${H("link")}</a> &amp; ${H("amp")} &lt;${H("b")}&gt;</p>`);
    assert.equal(highlightHtml("<p>it&#39;s x</p>", matcher("s")), `<p>it&#39;${H("s")} x</p>`);
    assert.equal(highlightHtml("<!-- hello --><p>hello</p>", matcher("hello")), `<!-- hello --><p>${H("hello")}</p>`);
  });

  test("phrases highlight their words", () => {
    assert.equal(highlightHtml("<p>big cat and big dog</p>", matcher('"big cat"')), `<p>${H("big")} ${H("cat")} and ${H("big")} dog</p>`);
  });

  test("match_subject is the escaped topic, highlighted", () => {
    assert.equal(escapeTopic(`a<b>&"c'`), "a&lt;b&gt;&amp;&quot;c&#x27;");
    assert.deepEqual(searchFields("<p>x</p>", "Tom & Jerry", matcher("jerry")), { match_content: "<p>x</p>", match_subject: `Tom &amp; ${H("Jerry")}` });
    assert.deepEqual(searchFields("<p>x</p>", "a<b", null), { match_content: "<p>x</p>", match_subject: "a&lt;b" });
  });

  test("words match under the index's folding: case, accents and compatibility forms", () => {
    assert.equal(highlightHtml("<p>Café CAFE ｃａｆｅ cafés</p>", matcher("cafe")), `<p>${H("Café")} ${H("CAFE")} ${H("ｃａｆｅ")} cafés</p>`);
    assert.equal(highlightHtml("<p>naive</p>", matcher("NAÏVE")), `<p>${H("naive")}</p>`);
  });
});
