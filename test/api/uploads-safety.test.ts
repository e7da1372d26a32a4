/**
 * Uploaded bytes never run as a page of the site (issue 11, item 6). As Zulip serves them: only
 * its INLINE_MIME_TYPES (images, audio, video, PDF, plain text) inline, everything else as an
 * `attachment` download; `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and the
 * Content-Security-Policy of its nginx uploads location; the same on temporary URLs; the
 * avatars location's policy on custom emoji images.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { fetchRaw, PNG, postFiles, uploadFile } from "./uploads-support.ts";
import { describeEachStore } from "../helpers/suite.ts";

const UPLOAD_CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; object-src 'self'; plugin-types application/pdf;";
const IMAGE_CSP = "default-src 'none'; img-src 'self'";
const SCRIPT = "<script>fetch('/api/v1/users/me')</script>";

/** name, declared type, bytes, then the expected served type and disposition. */
type Case = [string, string | undefined, string | Buffer, string, "inline" | "attachment"];

const CASES: Case[] = [
  ["page.html", "text/html", `<html><body>${SCRIPT}</body></html>`, "application/octet-stream", "attachment"],
  ["vector.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg">${SCRIPT}</svg>`, "application/octet-stream", "attachment"],
  ["pixel.png", "image/png", PNG, "image/png", "inline"],
  ["paper.pdf", "application/pdf", "%PDF-1.4\n%%EOF\n", "application/pdf", "inline"],
  ["notes.txt", "text/plain", `plain ${SCRIPT}`, "text/plain", "inline"],
  // No declared type: guessed from the name, with the same outcome.
  ["guessed.html", undefined, SCRIPT, "application/octet-stream", "attachment"],
  ["guessed.svg", undefined, "<svg/>", "application/octet-stream", "attachment"],
  // The declared type decides, whatever the name says; parameters and case do not matter.
  ["looks-safe.png", "image/svg+xml", "<svg/>", "application/octet-stream", "attachment"],
  ["shouting.txt", "Text/HTML; charset=utf-8", SCRIPT, "application/octet-stream", "attachment"],
  ["markup.xhtml", "application/xhtml+xml", SCRIPT, "application/octet-stream", "attachment"],
  ["data.xml", "text/xml", SCRIPT, "application/octet-stream", "attachment"],
  ["code.js", "text/javascript", "alert(1)", "application/octet-stream", "attachment"],
];

describeEachStore("uploads are served safely", (server) => {
  /** Uploads a file and returns its URL and its temporary URL. */
  const upload = async (user: Credentials, name: string, type: string | undefined, data: string | Buffer): Promise<{ url: string; temporary: string }> => {
    const { url } = expectSuccess(await uploadFile(server, user, name, data, type));
    const temporary = expectSuccess(await server.api.get(user, url)).url as string;
    return { url, temporary };
  };

  function assertSafe(headers: Headers, name: string, type: string, disposition: string, label: string): void {
    assert.equal(headers.get("content-type"), type, label);
    assert.equal(headers.get("content-disposition")?.split(";")[0], disposition, label);
    assert.match(headers.get("content-disposition") ?? "", new RegExp(`filename="${name.replace(".", "\\.")}"`), label);
    assert.equal(headers.get("x-content-type-options"), "nosniff", label);
    assert.equal(headers.get("x-frame-options"), "DENY", label);
    assert.equal(headers.get("content-security-policy"), UPLOAD_CSP, label);
  }

  for (const [name, declared, data, type, disposition] of CASES) {
    test(`${name} (${declared ?? "no declared type"}): ${disposition}, ${type}, via /user_uploads and the temporary URL`, async () => {
      const { member } = server.fixtures;
      const { url, temporary } = await upload(member, name, declared, data);
      for (const [label, res] of [["user_uploads", await fetchRaw(server, member, url)], ["temporary", await fetchRaw(server, null, temporary)]] as const) {
        assert.equal(res.status, 200, label);
        assertSafe(res.headers, name, type, disposition, `${name} via ${label}`);
        assert.deepEqual(res.data, Buffer.from(data), `${label}: the bytes are served unchanged`);
      }
    });
  }

  test("custom emoji images carry nosniff, DENY and the avatars policy", async () => {
    const { member } = server.fixtures;
    expectSuccess(await postFiles(server, member, "/realm/emoji/safe_face", [{ name: "e.png", data: PNG, type: "image/png" }]));
    const row = (expectSuccess(await server.api.get(member, "/realm/emoji")).emoji as Record<string, { name: string; source_url: string }>);
    const face = Object.values(row).find((e) => e.name === "safe_face");
    assert.ok(face);
    const res = await fetchRaw(server, null, face.source_url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("content-security-policy"), IMAGE_CSP);
  });
});
