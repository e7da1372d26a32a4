/**
 * src/markdown against upstream's rendering corpus (../shared/zulip-markdown-cases.json):
 * every regular case (expected_output, or marked_expected_output where given) and every
 * linkify case. Prints the pass count; failures must be exactly the listed expected failures.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { renderMessage, type RenderContext } from "../../src/markdown/render.ts";

const CORPUS_PATH = new URL("../../../shared/zulip-markdown-cases.json", import.meta.url);

type RegularCase = { name: string; input: string; expected_output: string; marked_expected_output?: string; translate_emoticons?: boolean };
type Corpus = { regular_tests: RegularCase[]; linkify_tests: Array<[string, string, string]> };

const corpus: Corpus = JSON.parse(readFileSync(CORPUS_PATH, "utf8"));

/** Upstream's test realm: its URL, camo settings, and the fixture rows the expected HTML shows. */
const CONTEXT: RenderContext = {
  realmUrl: "http://zulip.testserver",
  users: [{ id: 7, full_name: "Zoe", email: "ZOE@zulip.com" }],
  channels: [{ id: 1, name: "Denmark" }],
  camo: { baseUrl: "https://external-content.zulipcdn.net/external_content/", key: "dummy" },
};

/** Cases we knowingly render differently, with the reason. Kept honest by the test below. */
const EXPECTED_FAILURES: Record<string, string> = {
};

/** A code block with Pygments' token spans: what upstream's highlighting writes. */
const HIGHLIGHTED = /<div class="codehilite"[^>]*><pre><span><\/span><code>[^]*<span class="[a-z0-9]+">/;

/** Upstream's expected HTML for a linkify case (its test builds it the same way). */
function linkifyExpected([, template, url]: [string, string, string]): string {
  if (!template.includes("%s")) return template;
  const href = url.startsWith("http") ? url : url.includes("@") ? `mailto:${url}` : `http://${url}`;
  return template.replace("%s", `<a href="${href}">${url}</a>`);
}

function runCorpus(): { passed: string[]; failed: Map<string, string> } {
  const passed: string[] = [];
  const failed = new Map<string, string>();
  for (const c of corpus.regular_tests) {
    const html = renderMessage(c.input, { ...CONTEXT, translateEmoticons: c.translate_emoticons === true }).html;
    // Where upstream highlights code, its unhighlighted marked_expected_output does not count.
    const accepted = HIGHLIGHTED.test(c.expected_output) ? [c.expected_output] : [c.expected_output, c.marked_expected_output];
    if (accepted.includes(html)) passed.push(c.name);
    else failed.set(c.name, html);
  }
  corpus.linkify_tests.forEach((c, i) => {
    const name = `linkify ${i}: ${c[0].slice(0, 40)}`;
    const html = renderMessage(c[0], CONTEXT).html;
    if (html === linkifyExpected(c)) passed.push(name);
    else failed.set(name, html);
  });
  return { passed, failed };
}

test("markdown corpus: at least 95% pass and failures are exactly the listed ones", () => {
  const { passed, failed } = runCorpus();
  const total = passed.length + failed.size;
  console.log(`markdown corpus: ${passed.length}/${total} passed`);
  const unexpected = [...failed.keys()].filter((name) => !(name in EXPECTED_FAILURES));
  const nowPassing = passed.filter((name) => name in EXPECTED_FAILURES);
  for (const name of unexpected) console.log(`UNEXPECTED FAILURE ${name}:\n${failed.get(name)}\n`);
  assert.deepEqual(unexpected, [], "cases failing that are not in EXPECTED_FAILURES");
  assert.deepEqual(nowPassing, [], "cases in EXPECTED_FAILURES that now pass: remove them");
  assert.ok(passed.length / total >= 0.95, `only ${passed.length}/${total} passed`);
  assert.equal(total, 183 + 71);
});

test("markdown corpus: every case upstream highlights is matched exactly", () => {
  const highlighted = corpus.regular_tests.filter((c) => HIGHLIGHTED.test(c.expected_output));
  assert.equal(highlighted.length, 8);
  for (const c of highlighted) assert.equal(renderMessage(c.input, CONTEXT).html, c.expected_output, c.name);
});
