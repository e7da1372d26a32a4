/** src/narrow/parse.ts and src/model/search-words.ts: narrow terms and search words, with Zulip's validation wording. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JsonableError } from "../../src/errors.ts";
import { operandText, parseNarrow } from "../../src/narrow/parse.ts";
import { parseSearch, searchWords } from "../../src/model/search-words.ts";

function parseError(raw: unknown[]): string {
  try {
    parseNarrow(raw);
  } catch (err) {
    assert.ok(err instanceof JsonableError);
    assert.equal(err.code, "BAD_REQUEST");
    return err.message;
  }
  assert.fail("expected an error");
}

describe("parseNarrow", () => {
  test("modern terms keep operator, operand and negated (default false)", () => {
    assert.deepEqual(parseNarrow([{ operator: "channel", operand: "general" }, { operator: "is", operand: "starred", negated: true }]), [
      { operator: "channel", operand: "general", negated: false },
      { operator: "is", operand: "starred", negated: true },
    ]);
  });

  test("legacy string pairs become terms", () => {
    assert.deepEqual(parseNarrow([["stream", "x"], ["topic", "y"]]), [
      { operator: "stream", operand: "x", negated: false },
      { operator: "topic", operand: "y", negated: false },
    ]);
  });

  test("ids are accepted where Zulip accepts them", () => {
    assert.deepEqual(parseNarrow([{ operator: "channel", operand: 5 }, { operator: "sender", operand: 7 }, { operator: "dm", operand: [1, 2] }, { operator: "id", operand: 9 }]).map((t) => t.operand), [5, 7, [1, 2], 9]);
    assert.deepEqual(parseNarrow([{ operator: "dm-including", operand: 3 }, { operator: "group-pm-with", operand: "a@b.c" }, { operator: "pm-with", operand: "a@b.c,d@e.f" }]).map((t) => t.operand), [3, "a@b.c", "a@b.c,d@e.f"]);
  });

  test("negated accepts lax booleans", () => {
    assert.equal(parseNarrow([{ operator: "is", operand: "dm", negated: "true" }])[0].negated, true);
    assert.equal(parseNarrow([{ operator: "is", operand: "dm", negated: 0 }])[0].negated, false);
  });

  test("element shape errors", () => {
    assert.equal(parseError([[]]), "Invalid narrow[0]: Value error, element is not a string pair");
    assert.equal(parseError([["stream", "x", "y"]]), "Invalid narrow[0]: Value error, element is not a string pair");
    assert.equal(parseError([["stream", 5]]), "Invalid narrow[0]: Value error, element is not a string pair");
    assert.equal(parseError(["asadasd"]), "Invalid narrow[0]: Value error, dict or list required");
    assert.equal(parseError([{ operator: "is", operand: "dm" }, 5]), "Invalid narrow[1]: Value error, dict or list required");
    assert.equal(parseError([{ operator: null, operand: "Verona" }]), "Invalid narrow[0]: Value error, operator is missing");
    assert.equal(parseError([{ operator: "stream", operand: null }]), "Invalid narrow[0]: Value error, operand is missing");
    assert.equal(parseError([{}]), "Invalid narrow[0]: Value error, operand is missing");
    assert.equal(parseError([{ operator: 5, operand: "x" }]), 'narrow[0]["operator"] is not a string');
    assert.equal(parseError([{ operator: "is", operand: "dm", negated: "maybe" }]), 'narrow[0]["negated"] is not a boolean');
  });

  test("operand type errors", () => {
    assert.equal(parseError([{ operator: "channel", operand: [1] }]), "operand is not a string or integer");
    assert.equal(parseError([{ operator: "sender", operand: 1.5 }]), "operand is not a string or integer");
    assert.equal(parseError([{ operator: "dm", operand: 5 }]), "operand is not a string or an integer list");
    assert.equal(parseError([{ operator: "dm", operand: [1, "x"] }]), "operand[1] is not an integer");
    assert.equal(parseError([{ operator: "topic", operand: 5 }]), "operand is not a string");
    assert.equal(parseError([{ operator: "is", operand: ["dm"] }]), "operand is not a string");
    assert.equal(parseError([{ operator: "search", operand: 5 }]), "operand is not a string");
    assert.equal(parseError([{ operator: "search", operand: "" }]), "operand cannot be blank.");
    assert.equal(parseError([{ operator: "search", operand: "   " }]), "operand cannot be blank.");
  });

  test("operandText prints lists as Python does", () => {
    assert.equal(operandText([1, 2]), "[1, 2]");
    assert.equal(operandText(7), "7");
    assert.equal(operandText("x"), "x");
  });
});

describe("parseSearch", () => {
  test("words, quoted phrases and multi-word terms", () => {
    assert.deepEqual(parseSearch(["hello world"]).terms, [["hello"], ["world"]]);
    assert.deepEqual(parseSearch(['"big cat" dog']).terms, [["big", "cat"], ["dog"]]);
    assert.deepEqual(parseSearch(["foo-bar"]).terms, [["foo", "bar"]]);
    assert.deepEqual(parseSearch(["Café", "NAÏVE"]).terms, [["cafe"], ["naive"]]);
  });

  test("several operands are joined; punctuation alone gives no terms", () => {
    assert.deepEqual(parseSearch(["a", "b"]).terms, [["a"], ["b"]]);
    assert.deepEqual(parseSearch(["!!! ???"]).terms, []);
  });

  test("searchWords lists distinct words", () => {
    assert.deepEqual(searchWords(parseSearch(['"a b" b c'])), ["a", "b", "c"]);
  });
});
