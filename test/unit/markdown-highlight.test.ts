/**
 * Code blocks highlighted as upstream's Pygments does (src/markdown/code.ts, highlight.ts):
 * escaping of every piece of user text, no text lost or doubled in any language, the per-message
 * budget, first-line languages, and a few blocks checked against Pygments' own output.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMessage, type RenderContext } from "../../src/markdown/render.ts";
import { codeLanguageProfile } from "../../src/markdown/code-languages.ts";
import { PROFILES, type ProfileName } from "../../src/markdown/pygments-profiles.ts";

const CONTEXT: RenderContext = { realmUrl: "http://zulip.testserver" };

/** The code of a rendered block: spans removed, entities decoded. */
function codeText(html: string): string {
  const m = /<pre><span><\/span><code>([^]*)<\/code><\/pre><\/div>$/.exec(html);
  assert.ok(m !== null, `not a code block: ${html}`);
  const inner = m[1];
  const stripped = inner.replace(/<span class="[a-z0-9]+">|<\/span>/g, "");
  assert.ok(!/[<>]/.test(stripped), `markup left besides the spans: ${stripped}`);
  assert.ok(!/&(?!(?:amp|lt|gt|quot|#39);)/.test(stripped), `an unescaped & in ${stripped}`);
  return stripped.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&").replace(/\n$/, "");
}

function block(lang: string, code: string, ctx: RenderContext = CONTEXT): string {
  return renderMessage(`\`\`\`${lang}\n${code}\n\`\`\``, ctx).html;
}

const HOSTILE = [
  `<script>alert("x & y")</script> & &amp; &lt;`,
  `x = "<script>" + '&' # </code></pre><img src=x onerror=alert(1)>`,
  `/* <b>&nbsp;</b> */ s = \`<\${a & b}>\`; // &#39;`,
  `<?php echo "<i>$a</i> & {$b}"; ?> <!-- & -->`,
  `\\textbf{<&>} $a < b & c$ % <script>`,
].join("\n");

test("highlighted code escapes every piece of text: <script> and & stay text in every language", () => {
  for (const name of Object.keys(PROFILES)) {
    const html = block(name === "python2" ? "py2" : name === "objectivec" ? "objc" : name === "console" ? "console" : name, HOSTILE);
    assert.ok(!/<script|<img|<b>|<i>|<\?php|<!--/i.test(html), `${name}: ${html}`);
    assert.equal(codeText(html), HOSTILE, name);
  }
});

test("a block with a language escapes as upstream's lxml pass writes it; one without, as Pygments does", () => {
  const tagged = block("python", `print("<a href='x'>&</a>")`);
  assert.ok(tagged.includes(`<span class="s2">"&lt;a href='x'&gt;&amp;&lt;/a&gt;"</span>`), tagged);
  const untagged = block("", `#!python\nprint("<a href='x'>&</a>")`);
  assert.ok(untagged.includes(`<span class="s2">&quot;&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;&quot;</span>`), untagged);
});

test("no text is lost or doubled in any highlighted language", () => {
  const sample = [
    `#!/usr/bin/env thing`,
    `import a.b as c; from x import (y, z)`,
    `class Foo<T> extends Bar implements Baz { @Override public static void main(String[] args) {} }`,
    `def f(self, *a, **k) -> int: return f"{a!r:>10}" + r'\\d' + b"\\x00" + """doc\n  string"""`,
    `const re = /a[/]b\\//g, t = \`x\${y + \`z\${w}\`}\`; let n = 0x1F + 1e-3 + 10n;`,
    `$var = $obj->method("a {$b[1]} $c") . 'd' ?? null; echo <<<EOT\nhere $doc\nEOT;`,
    `SELECT * FROM t WHERE a = 'b''c' -- comment`,
    `<div class="x" data-y='z'>&amp; text<br/></div> <!-- c -->`,
    `key: [1, 2.5, "s", true, null] # yaml-ish`,
    `\\section*{A} $x^2_{i}$ \\[ \\frac{1}{2} \\] % tex`,
    `@@ -1,2 +1,2 @@\n-old\n+new\n same`,
    `unterminated "string and 'quote and /* comment and \`tick`,
    `ünïcödé = "日本語" // 🎉 emoji`,
  ].join("\n");
  for (const name of Object.keys(PROFILES) as ProfileName[]) {
    const lang = name === "python2" ? "py2" : name === "objectivec" ? "objc" : name;
    assert.notEqual(codeLanguageProfile(lang), null, lang);
    const html = block(lang, sample);
    assert.ok(/<span class="[a-z0-9]+">/.test(html), `${name} highlighted nothing`);
    assert.equal(codeText(html), sample, name);
  }
});

test("blocks match Pygments' output for common languages", () => {
  // Each expected block is what upstream's Pygments writes for the code.
  assert.equal(
    block("js", "let o = {k: 1}; // c"),
    `<div class="codehilite" data-code-language="JavaScript"><pre><span></span><code><span class="kd">let</span><span class="w"> </span><span class="nx">o</span><span class="w"> </span><span class="o">=</span><span class="w"> </span><span class="p">{</span><span class="nx">k</span><span class="o">:</span><span class="w"> </span><span class="mf">1</span><span class="p">};</span><span class="w"> </span><span class="c1">// c</span>\n</code></pre></div>`,
  );
  assert.equal(
    block("go", 'func main() {\n\tfmt.Println("hi", nil)\n}'),
    `<div class="codehilite" data-code-language="Go"><pre><span></span><code><span class="kd">func</span><span class="w"> </span><span class="nx">main</span><span class="p">()</span><span class="w"> </span><span class="p">{</span>\n<span class="w">\t</span><span class="nx">fmt</span><span class="p">.</span><span class="nx">Println</span><span class="p">(</span><span class="s">"hi"</span><span class="p">,</span><span class="w"> </span><span class="kc">nil</span><span class="p">)</span>\n<span class="p">}</span>\n</code></pre></div>`,
  );
  assert.equal(
    block("c", "#include <stdio.h>\nint main(void) { return 0; }"),
    `<div class="codehilite" data-code-language="C"><pre><span></span><code><span class="cp">#include</span><span class="w"> </span><span class="cpf">&lt;stdio.h&gt;</span>\n<span class="kt">int</span><span class="w"> </span><span class="nf">main</span><span class="p">(</span><span class="kt">void</span><span class="p">)</span><span class="w"> </span><span class="p">{</span><span class="w"> </span><span class="k">return</span><span class="w"> </span><span class="mi">0</span><span class="p">;</span><span class="w"> </span><span class="p">}</span>\n</code></pre></div>`,
  );
  assert.equal(
    block("python", 'class A:\n    """Doc."""\n    def f(self): return f"{x!r}"'),
    `<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="k">class</span> <span class="nc">A</span><span class="p">:</span>\n<span class="w">    </span><span class="sd">"""Doc."""</span>\n    <span class="k">def</span> <span class="nf">f</span><span class="p">(</span><span class="bp">self</span><span class="p">):</span> <span class="k">return</span> <span class="sa">f</span><span class="s2">"</span><span class="si">{</span><span class="n">x</span><span class="si">!r}</span><span class="s2">"</span>\n</code></pre></div>`,
  );
  assert.equal(
    block("bash", 'echo "$HOME" && ls'),
    `<div class="codehilite" data-code-language="Bash"><pre><span></span><code><span class="nb">echo</span><span class="w"> </span><span class="s2">"</span><span class="nv">$HOME</span><span class="s2">"</span><span class="w"> </span><span class="o">&amp;&amp;</span><span class="w"> </span>ls\n</code></pre></div>`,
  );
});

test("unknown languages and text stay plain; their data-code-language is kept", () => {
  assert.equal(block("inventedlanguage", "def f(): pass"), `<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>def f(): pass\n</code></pre></div>`);
  assert.equal(block("text", "def f(): pass"), `<div class="codehilite" data-code-language="Text only"><pre><span></span><code>def f(): pass\n</code></pre></div>`);
  assert.equal(block("yml", "a: 1"), `<div class="codehilite" data-code-language="yml"><pre><span></span><code>a: 1\n</code></pre></div>`);
  assert.equal(block("", "def f(): pass"), `<div class="codehilite"><pre><span></span><code>def f(): pass\n</code></pre></div>`);
});

test("an untagged fenced block's first line may name its language, and stays", () => {
  const fenced = block("", "#!/bin/bash\necho hi");
  assert.equal(fenced, `<div class="codehilite"><pre><span></span><code><span class="ch">#!/bin/bash</span>\n<span class="nb">echo</span><span class="w"> </span>hi\n</code></pre></div>`);
  assert.equal(block("", ":::nosuchlanguage\nx"), `<div class="codehilite"><pre><span></span><code>:::nosuchlanguage\nx\n</code></pre></div>`);
  // A tagged block ignores its first line; the realm's default language counts as a tag.
  assert.ok(block("", "#!python\nx", { ...CONTEXT, defaultCodeBlockLanguage: "text" }).includes(`data-code-language="Text only"><pre><span></span><code>#!python\nx\n`));
});

test("a message's highlighting stops at its budget (HIGHLIGHT_MAX_CHARS); later blocks stay plain", () => {
  const code = "x = 1";
  const two = `\`\`\`python\n${code}\n\`\`\`\n\n\`\`\`python\n${code}\n\`\`\``;
  const spans = (html: string) => html.match(/<span class="n">/g)?.length ?? 0;
  assert.equal(spans(renderMessage(two, CONTEXT).html), 2);
  assert.equal(spans(renderMessage(two, { ...CONTEXT, highlightMaxChars: 5 }).html), 1);
  assert.equal(spans(renderMessage(two, { ...CONTEXT, highlightMaxChars: 4 }).html), 0);
  assert.equal(spans(renderMessage(two, { ...CONTEXT, highlightMaxChars: 0 }).html), 0);
  // The default: 4,000 characters.
  const big = "x = 1\n".repeat(700);
  assert.equal(spans(renderMessage(`\`\`\`python\n${big}\`\`\``, CONTEXT).html), 0);
  assert.equal(spans(renderMessage(`\`\`\`python\n${big.slice(0, 3990)}\`\`\``, CONTEXT).html), 665);
});

test("crafted code that makes grammars quadratic is bounded by the budget", () => {
  // Runs of one character (or short units) were the slowest input found for these grammars.
  const shapes = ["$", "<a ", "#", "[", "!", '"', "`${"];
  for (const lang of ["scss", "tsx", "typescript", "javascript", "html", "markdown", "yaml"]) {
    for (const unit of shapes) {
      const code = unit.repeat(10_000 / unit.length).slice(0, 9_900);
      const started = performance.now();
      // A whole 10,000-character message: past the budget, so plain (unbounded, it took up to 2 s).
      assert.ok(!renderMessage(`\`\`\`${lang}\n${code}\n\`\`\``, CONTEXT).html.includes("<span class="), lang);
      // Within the budget: highlighted, in bounded time (up to 250 ms here when idle).
      renderMessage(`\`\`\`${lang}\n${code.slice(0, 3_900)}\n\`\`\``, CONTEXT);
      const ms = performance.now() - started;
      // Generous for a shared, loaded test machine.
      assert.ok(ms < 4000, `${lang} ${JSON.stringify(unit)}: ${ms.toFixed(0)} ms`);
    }
  }
});

test("Prism's global is there only while a grammar loads", () => {
  block("kotlin", "val x = 1");
  assert.equal((globalThis as { Prism?: unknown }).Prism, undefined);
});
