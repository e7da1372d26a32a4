import { readFileSync } from "node:fs";
import { renderMessage } from "../src/markdown/render.ts";
const corpus = JSON.parse(readFileSync("../shared/zulip-markdown-cases.json", "utf8"));
const CONTEXT = { realmUrl: "http://zulip.testserver", users: [{ id: 7, full_name: "Zoe", email: "ZOE@zulip.com" }], channels: [{ id: 1, name: "Denmark" }] } as never;
for (const name of ["tex_safe_script_tag"]) {
  const c = corpus.regular_tests.find((x: { name: string }) => x.name === name);
  const got = renderMessage(c.input, CONTEXT).html;
  let i = 0; while (i < got.length && got[i] === c.expected_output[i]) i++;
  console.log(name, "\n  exp:", c.expected_output.slice(Math.max(0, i - 80), i + 120), "\n  got:", got.slice(Math.max(0, i - 80), i + 120));
}
