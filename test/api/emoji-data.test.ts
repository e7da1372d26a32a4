/**
 * `server_emoji_data_url` (FL 140): the register snapshot's URL serves `{"code_to_names": ...}`
 * without authentication, built from the renderer's emoji data, with caching headers and
 * entity-tag revalidation.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { unicodeEmojiCode, unicodeEmojiName } from "../../src/markdown/emoji-data.ts";
import { registerQueue } from "../helpers/events.ts";
import { describeEachStore } from "../helpers/suite.ts";

describeEachStore("emoji data", (server) => {
  let url: string;
  before(async () => {
    url = (await registerQueue(server.api, server.fixtures.member, { fetch_event_types: ["realm"] })).state.server_emoji_data_url as string;
  });

  test("the snapshot's URL serves code_to_names without authentication, canonical names first", async () => {
    assert.equal(url, `${server.url}/static/generated/emoji/emoji_api.json`);
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = (await res.json()) as { code_to_names: Record<string, string[]> };
    assert.deepEqual(Object.keys(body), ["code_to_names"]);
    const codes = body.code_to_names;
    assert.ok(Object.keys(codes).length > 1800, `${Object.keys(codes).length} emoji`);
    assert.deepEqual(codes["1f419"], ["octopus"]);
    assert.deepEqual(codes["1f642"], ["smile", "slightly_smiling_face"]);
    assert.equal(codes["1f44d"][0], "+1");
    assert.ok(codes["1f44d"].includes("thumbsup"));
    assert.equal(codes["2764"][0], "heart", "FE0F is dropped from codes");
    assert.equal(codes["1f1e6-1f1e8"][0], "flag_ac", "datasource hyphens become underscores");
    assert.equal(codes["1f3fb"], undefined, "skin tone modifiers are not emoji");
    // Every listed name renders as that emoji; the first is the one the renderer names it by.
    for (const [code, names] of Object.entries(codes)) {
      assert.equal(unicodeEmojiName(code), names[0], code);
      for (const name of names) assert.equal(unicodeEmojiCode(name), code, `${name} -> ${code}`);
      assert.equal(new Set(names).size, names.length, `${code} lists a name twice`);
    }
  });

  test("cacheable: Cache-Control, an entity tag, 304 on revalidation, open to any origin, HEAD", async () => {
    const first = await fetch(url);
    const etag = first.headers.get("etag") ?? "";
    const text = await first.text();
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    assert.equal(first.headers.get("cache-control"), "public, max-age=86400");
    assert.equal(first.headers.get("access-control-allow-origin"), "*");
    const again = await fetch(url, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), "");
    assert.equal(again.headers.get("etag"), etag);
    const weak = await fetch(url, { headers: { "if-none-match": `"other", W/${etag}` } });
    assert.equal(weak.status, 304);
    const stale = await fetch(url, { headers: { "if-none-match": '"0123"' } });
    assert.equal(stale.status, 200);
    assert.equal(await stale.text(), text, "the same document every time");
    const head = await fetch(url, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("etag"), etag);
  });

  test("other paths under /static are still not found, in the envelope", async () => {
    const res = await fetch(`${server.url}/static/generated/emoji/other.json`);
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { result: "error", msg: "Endpoint does not exist", code: "NOT_FOUND" });
  });
});
