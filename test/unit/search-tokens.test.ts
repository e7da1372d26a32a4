/** src/model/search-words.ts: the tokens both indexes hold and every query is cut into. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { foldWord, searchTokens } from "../../src/model/search-words.ts";

describe("search tokens", () => {
  test("runs of letters and digits, in order, punctuation and symbols cut", () => {
    assert.deepEqual(searchTokens("Don't stop: v1.2 foo-bar_baz 🎉 x"), ["don", "t", "stop", "v1", "2", "foo", "bar", "baz", "x"]);
    assert.deepEqual(searchTokens("日本語 テキスト"), ["日本語", "テキスト"]);
    assert.deepEqual(searchTokens(" ?! "), []);
  });

  test("folding: case, diacritics and compatibility forms", () => {
    assert.equal(foldWord("Café"), "cafe");
    assert.equal(foldWord("ＦＵＬＬ"), "full");
    assert.equal(foldWord("ﬁne"), "fine");
    // Uppercase that only appears after decomposition is lower-cased too.
    assert.equal(foldWord("ℌ"), "h");
    assert.equal(foldWord("İstanbul"), "istanbul");
  });

  test("a folded token is one token: no space, quote or mark survives decomposition", () => {
    const ligature = foldWord("\uFDFA");
    assert.ok(ligature.length > 0 && !/[\s'"\\]/.test(ligature), ligature);
    assert.deepEqual(searchTokens("\uFDFA"), [ligature]);
    assert.equal(foldWord("½"), "12");
  });

  test("folding is idempotent", () => {
    for (const word of ["Café", "ＦＵＬＬ", "ﬁne", "İstanbul", "ΟΔΟΣ", "Straße", "\uFDFA"]) assert.equal(foldWord(foldWord(word)), foldWord(word));
  });

  test("words PostgreSQL cannot index (2 KiB or more) are left out on both engines", () => {
    assert.deepEqual(searchTokens(`a ${"b".repeat(2047)} c`), ["a", "b".repeat(2047), "c"]);
    assert.deepEqual(searchTokens(`a ${"b".repeat(2048)} c`), ["a", "c"]);
    assert.deepEqual(searchTokens(`${"é".repeat(1100)}`), ["e".repeat(1100)]);
  });
});
