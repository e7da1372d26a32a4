/** TeX through KaTeX (src/markdown/katex.ts, tex.ts): typeset, bounded per message, errors as upstream's markup. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMessage, type RenderContext } from "../../src/markdown/render.ts";
import { TEX_BUDGET_PER_MESSAGE } from "../../src/markdown/tex.ts";

const CONTEXT: RenderContext = { realmUrl: "https://chat.example.com" };
const html = (content: string, ctx: RenderContext = CONTEXT) => renderMessage(content, ctx).html;
const typesetCount = (out: string) => out.split('<span class="katex">').length - 1;
const errorCount = (out: string) => out.split('<span class="tex-error">').length - 1;

test("inline and display math are typeset by KaTeX, display once wrapped", () => {
  const inline = html("$$x^2$$");
  assert.equal(typesetCount(inline), 1);
  assert.match(inline, /<annotation encoding="application\/x-tex">x\^2<\/annotation>/);
  const display = html("```math\n\\frac{a}{b}\n```");
  assert.equal(display.split('class="katex-display"').length - 1, 1);
  assert.equal(typesetCount(display), 1);
});

test("what KaTeX cannot typeset shows as upstream's tex-error markup", () => {
  assert.equal(html("$$\\frac{1}$$"), '<p><span class="tex-error">$$\\frac{1}$$</span></p>');
  assert.equal(html("```math\n\\frac{1}\n```"), '<p><span class="tex-error">\\frac{1}</span></p>');
});

test("a macro-expansion bomb stops at KaTeX's expansion bound and errors", () => {
  const defs = ["a", "b", "c", "d", "e", "f", "g", "h"].map((name, i, all) => (i < all.length - 1 ? `\\def\\${name}{\\${all[i + 1]}\\${all[i + 1]}}` : `\\def\\${name}{xy}`)).join("");
  const out = html(`$$${defs}${"\\a".repeat(50)}$$`);
  assert.equal(errorCount(out), 1);
  assert.equal(typesetCount(out), 0);
});

test("links and classes from TeX are never made: trust stays off", () => {
  const out = html("$$\\href{javascript:alert(1)}{x}$$ $$\\url{https://example.com}$$ $$\\htmlClass{evil}{y}$$");
  assert.doesNotMatch(out, /<a\b|href=|class="evil"/);
});

test("a message typesets at most its budget of TeX; the rest shows as errors", () => {
  const big = `x+${"y+".repeat(Math.floor((TEX_BUDGET_PER_MESSAGE * 0.6) / 2))}z`;
  const out = html(`$$${big}$$ and $$${big}$$`);
  assert.equal(typesetCount(out), 1);
  assert.equal(errorCount(out), 1);
  // Many small formulas: each counts, so a message of thousands is mostly errors.
  const many = html("$$x$$ ".repeat(1000));
  assert.ok(typesetCount(many) < 100, `${typesetCount(many)} typeset`);
  assert.equal(typesetCount(many) + errorCount(many), 1000);
});

test("a renderer passed in the context replaces KaTeX", () => {
  assert.equal(html("$$x$$", { ...CONTEXT, renderTex: (tex, display) => `<b>${tex}:${display}</b>` }), "<p><b>x:false</b></p>");
});
