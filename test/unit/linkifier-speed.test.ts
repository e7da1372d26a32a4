/**
 * No pattern the server accepts makes a 10,000-character message take more than 50 ms to render:
 * patterns that backtrack catastrophically in JavaScript's RegExp run on RE2's linear-time engine,
 * and a rendering's linkifier work is bounded. Timed on the renderer itself, median of runs.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkLinkifierPattern } from "../../src/markdown/linkifier-patterns.ts";
import { MAX_LINKIFIER_MATCHES } from "../../src/markdown/linkifiers.ts";
import { renderMessage, type Linkifier, type RenderContext } from "../../src/markdown/render.ts";

/** Content sends are truncated to, and /messages/render accepts at most. */
const MESSAGE_LENGTH = 10_000;
const BOUND_MS = 50;
const RUNS = 7;

/** Each pattern with its worst inputs (each exactly MESSAGE_LENGTH characters). */
const HOSTILE: Array<{ pattern: string; texts: string[] }> = [
  { pattern: "(?P<id>(.*a){12})!", texts: ["a".repeat(MESSAGE_LENGTH), `${"a".repeat(MESSAGE_LENGTH - 1)}!`, "a ".repeat(MESSAGE_LENGTH / 2)] },
  { pattern: "\\d*\\d*\\d*\\d*\\d*\\d*", texts: ["1".repeat(MESSAGE_LENGTH), "1 ".repeat(MESSAGE_LENGTH / 2)] },
  { pattern: ".*.*.*.*.*.*", texts: ["a".repeat(MESSAGE_LENGTH), "a ".repeat(MESSAGE_LENGTH / 2)] },
  { pattern: "[0-9 ]*[0-9 ]*[0-9 ]*[0-9 ]*", texts: ["1 ".repeat(MESSAGE_LENGTH / 2), `${"1 ".repeat(MESSAGE_LENGTH / 2 - 1)}x!`] },
  // Each match settles only after reading to the end of its window: one window per match.
  { pattern: "(?P<id>a(?:.*b)?)", texts: ["a ".repeat(MESSAGE_LENGTH / 2)] },
  { pattern: "(?P<id>a(?:(?:.*b){150})?)", texts: ["a ".repeat(MESSAGE_LENGTH / 2)] },
  // A match every three characters.
  { pattern: "#(?P<id>[0-9]+)", texts: [`${"#1 ".repeat(MESSAGE_LENGTH / 3)}#`] },
];

function linkifier(pattern: string): Linkifier {
  const groups = checkLinkifierPattern(pattern);
  return { pattern, url_template: `https://tracker.example.com/${groups.map((g) => `{${g}}`).join("/")}` };
}

/**
 * Median time of RUNS renderings, after one unmeasured run. CPU time of this process: what the
 * rendering costs the server, without the time a busy test machine gives to other processes.
 */
function medianMs(content: string, context: RenderContext): number {
  renderMessage(content, context);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.cpuUsage();
    renderMessage(content, context);
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

describe("hostile linkifier patterns render a 10,000-character message in under 50 ms", () => {
  for (const { pattern, texts } of HOSTILE) {
    test(pattern, () => {
      const context: RenderContext = { realmUrl: "https://chat.example.com", linkifiers: [linkifier(pattern)] };
      for (const text of texts) {
        assert.equal(text.length, MESSAGE_LENGTH);
        const ms = medianMs(text, context);
        assert.ok(ms < BOUND_MS, `${pattern} on ${JSON.stringify(text.slice(0, 6))}...: ${ms.toFixed(1)} ms`);
      }
    });
  }

  test("all of them at once (the budget is per rendering, not per linkifier)", () => {
    const context: RenderContext = { realmUrl: "https://chat.example.com", linkifiers: HOSTILE.map((h) => linkifier(h.pattern)) };
    for (const text of ["a ".repeat(MESSAGE_LENGTH / 2), "1 ".repeat(MESSAGE_LENGTH / 2), "a".repeat(MESSAGE_LENGTH)]) {
      const ms = medianMs(text, context);
      assert.ok(ms < BOUND_MS, `${JSON.stringify(text.slice(0, 6))}...: ${ms.toFixed(1)} ms`);
    }
  });

  test("the bounds are counted, not timed, and leave realistic use alone", () => {
    const issues = linkifier("#(?P<id>[0-9]+)");
    const links = (content: string, linkifiers: Linkifier[]) => renderMessage(content, { realmUrl: "https://chat.example.com", linkifiers }).html.split("<a ").length - 1;
    // At most MAX_LINKIFIER_MATCHES per message, and all of a message with fewer.
    assert.equal(links("#1 ".repeat(MESSAGE_LENGTH / 3), [issues]), MAX_LINKIFIER_MATCHES);
    assert.equal(links("#1 ".repeat(MAX_LINKIFIER_MATCHES - 1), [issues]), MAX_LINKIFIER_MATCHES - 1);
    // Twenty linkifiers over a 10,000-character message, each matching near its end.
    const many = Array.from({ length: 20 }, (_, i) => linkifier(`T${i}-(?P<id>[0-9]+)`));
    const text = `${"word ".repeat(MESSAGE_LENGTH / 5 - 60)}${many.map((_, i) => `T${i}-7`).join(" ")}`;
    assert.equal(links(text, many), 20);
    // A pattern hostile to the window still leaves the message's first matches linked, identically.
    const hostile = linkifier("(?P<id>a(?:.*b)?)");
    const first = renderMessage("a ".repeat(MESSAGE_LENGTH / 2), { realmUrl: "https://chat.example.com", linkifiers: [hostile] }).html;
    assert.ok(first.split("<a ").length - 1 >= 100);
    assert.equal(renderMessage("a ".repeat(MESSAGE_LENGTH / 2), { realmUrl: "https://chat.example.com", linkifiers: [hostile] }).html, first);
  });
});
