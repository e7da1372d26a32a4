/** src/markdown/topic-links.ts: a topic's links from linkifiers and bare URLs, checked against upstream's own examples. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { topicLinks } from "../../src/markdown/topic-links.ts";

const TRAC = { pattern: "#(?P<id>[0-9]{2,8})", url_template: "https://trac.example.com/ticket/{id}" };
const ticket = (id: string) => ({ text: `#${id}`, url: `https://trac.example.com/ticket/${id}` });
const google = { text: "https://google.com", url: "https://google.com" };

describe("topicLinks", () => {
  test("a topic without links, and the empty topic, have none", () => {
    assert.deepEqual(topicLinks("no match here", [TRAC]), []);
    assert.deepEqual(topicLinks("", [TRAC]), []);
  });

  test("linkifier matches and bare URLs come out in the order they appear", () => {
    assert.deepEqual(topicLinks("#444", [TRAC]), [ticket("444")]);
    assert.deepEqual(topicLinks("#444 https://google.com", [TRAC]), [ticket("444"), google]);
    assert.deepEqual(topicLinks("#111 https://google.com #111 #222 #111 https://google.com #222", [TRAC]), [
      ticket("111"), google, ticket("111"), ticket("222"), ticket("111"), google, ticket("222"),
    ]);
  });

  test("a linkifier match needs a boundary before it and no letter or digit after it", () => {
    for (const topic of ["Hello #123 World", "Hello\u00a0#123\u00a0World", "チケットは #123 です", "(#123)", "#123>", '"#123"', "#123@"]) {
      assert.deepEqual(topicLinks(topic, [TRAC]), [ticket("123")], topic);
    }
    for (const topic of ["Hello #123World", "Hello#123 World", "チケットは#123です", ")#123(", "##123"]) {
      assert.deepEqual(topicLinks(topic, [TRAC]), [], topic);
    }
  });

  test("bare URLs: scheme-less ones go over https, trailing punctuation stays out, queries stay in", () => {
    assert.deepEqual(topicLinks("google.in google.com", []), [
      { text: "google.in", url: "https://google.in" },
      { text: "google.com", url: "https://google.com" },
    ]);
    assert.deepEqual(topicLinks("https://google.com/test?foo=bar", []), [{ text: "https://google.com/test?foo=bar", url: "https://google.com/test?foo=bar" }]);
    assert.deepEqual(topicLinks("Have you seen github.com/zulip?", []), [{ text: "github.com/zulip", url: "https://github.com/zulip" }]);
    assert.deepEqual(topicLinks("Do you like https://example.com? I love it.", []), [{ text: "https://example.com", url: "https://example.com" }]);
    assert.deepEqual(topicLinks("deploy (see:example.org/a)", []), [{ text: "example.org/a", url: "https://example.org/a" }]);
    assert.deepEqual(topicLinks("notes.md and main.py", []), []);
  });

  test("earlier linkifiers win overlaps, and every linkifier wins over bare URLs", () => {
    const linkifiers = [
      { pattern: "(?P<id>ABC-[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" },
      { pattern: "(?P<id>[A-Z][A-Z0-9]*-[0-9]+)", url_template: "https://other-trac.example.com/ticket/{id}" },
      { pattern: "(?P<id>[A-Z][A-Z0-9]+)", url_template: "https://yet-another-trac.example.com/ticket/{id}" },
    ];
    assert.deepEqual(topicLinks("ABC-123", linkifiers), [{ text: "ABC-123", url: "https://trac.example.com/ticket/ABC-123" }]);
    assert.deepEqual(topicLinks("ASD-123 ABC-123 QWE", linkifiers), [
      { text: "ASD-123", url: "https://other-trac.example.com/ticket/ASD-123" },
      { text: "ABC-123", url: "https://trac.example.com/ticket/ABC-123" },
      { text: "QWE", url: "https://yet-another-trac.example.com/ticket/QWE" },
    ]);
    const byPriority = [
      { pattern: "http", url_template: "http://example.com/" },
      { pattern: "b#(?P<id>[a-z]+)", url_template: "http://example.com/b/{id}" },
      { pattern: "a#(?P<aid>[a-z]+) b#(?P<bid>[a-z]+)", url_template: "http://example.com/a/{aid}/b/{bid}" },
      { pattern: "a#(?P<id>[a-z]+)", url_template: "http://example.com/a/{id}" },
    ];
    assert.deepEqual(topicLinks("http://foo.com a#asd b#bar", byPriority), [
      { text: "http", url: "http://example.com/" },
      { text: "a#asd", url: "http://example.com/a/asd" },
      { text: "b#bar", url: "http://example.com/b/bar" },
    ]);
  });

  test("a linkifier match that starts before a bare URL and covers it hides it; one inside a URL does not count", () => {
    const linkifiers = [
      { pattern: "ABC-42", url_template: "https://google.com" },
      { pattern: "com.+(?P<id>ABC-[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" },
    ];
    assert.deepEqual(topicLinks("com ABC-42", linkifiers), [{ text: "ABC-42", url: "https://google.com" }]);
    assert.deepEqual(topicLinks("https://foo.com/ABC-123", linkifiers), [{ text: "https://foo.com/ABC-123", url: "https://foo.com/ABC-123" }]);
    assert.deepEqual(topicLinks("com https://foo.com/ABC-123", linkifiers), [{ text: "com https://foo.com/ABC-123", url: "https://trac.example.com/ticket/ABC-123" }]);
  });

  test("linkifier variables are expanded into the URL template, encoded", () => {
    const linkifiers = [{ pattern: "(?P<name>[a-z]+)/(?P<num>[0-9]+)", url_template: "https://example.com/{name}/issues/{num}{?q}" }];
    assert.deepEqual(topicLinks("fix zulip/42 now", linkifiers), [{ text: "zulip/42", url: "https://example.com/zulip/issues/42" }]);
  });
});
