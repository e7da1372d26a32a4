/** src/uri-template.ts: RFC 6570 validation and variable names, with upstream's valid and invalid examples. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseUriTemplate } from "../../src/uri-template.ts";

describe("parseUriTemplate", () => {
  test("valid templates of every level list their variables in order, once each", () => {
    const cases: Array<[string, string[]]> = [
      ["http://example.com/", []],
      ["$not_a_url$", []],
      ["https://example.com/%%(foo)s", []],
      ["https://example.com/{foo}{bars}", ["foo", "bars"]],
      ["https://example.com/?foo={foo}&again={foo}", ["foo"]],
      ["https://example.com{/foo,bar,baz}", ["foo", "bar", "baz"]],
      ["https://example.com/{?foo*}", ["foo"]],
      ["https://example.com/{+foo,bar}", ["foo", "bar"]],
      ["https://chat{.domain}.com/{#foo}", ["domain", "foo"]],
      ["https://zone_{zone}{.domain}.net/ticket{/location}{/id}{?name,chapter}{#fragment:5}", ["zone", "domain", "location", "id", "name", "chapter", "fragment"]],
      ["{;a.b,c%20d}{&x:9999}", ["a.b", "c%20d", "x"]],
    ];
    for (const [template, names] of cases) assert.deepEqual(parseUriTemplate(template)?.variableNames, names, template);
  });

  test("expressions keep their operator and modifiers", () => {
    assert.deepEqual(parseUriTemplate("a{?q,lang:2}{/p*}")?.parts, [
      { literal: "a" },
      { operator: "?", vars: [{ name: "q", prefix: null, explode: false }, { name: "lang", prefix: 2, explode: false }] },
      { operator: "/", vars: [{ name: "p", prefix: null, explode: true }] },
    ]);
  });

  test("invalid templates are refused", () => {
    const invalid = [
      "https://example.com/{foo",
      "https://example.com/{{}",
      "https://example.com/{//foo}",
      "https://example.com/{bar++}",
      "https://example.com/}",
      "{}",
      "{=reserved}",
      "{a:0}",
      "{a:10000}",
      "{a*:3}",
      "{a..b}",
      "{a,}",
      "{a b}",
    ];
    for (const template of invalid) assert.equal(parseUriTemplate(template), null, template);
  });
});
