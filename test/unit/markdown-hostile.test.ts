/** src/markdown: hostile input never yields script, event handlers, unsafe URLs or unknown tags. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMessage, type RenderContext } from "../../src/markdown/render.ts";

/** KaTeX's MathML and the SVG it draws radicals and stretchy arrows with (markdown/katex.ts). */
const TEX_TAGS = ["math", "semantics", "annotation", "mrow", "mi", "mo", "mn", "ms", "mtext", "mspace", "mstyle", "mpadded", "mphantom", "msup", "msub", "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "menclose", "svg", "path"];
const TEX_ATTRS = ["xmlns", "display", "encoding", "mathvariant", "stretchy", "accent", "accentunder", "mathcolor", "mathbackground", "voffset", "width", "height", "rowspacing", "columnalign", "columnspacing", "rowlines", "columnlines", "scriptlevel", "displaystyle", "fence", "separator", "lspace", "rspace", "minsize", "maxsize", "linethickness", "notation", "viewBox", "preserveAspectRatio", "d"];
const TAGS = new Set(["p", "br", "a", "span", "strong", "em", "del", "code", "pre", "div", "blockquote", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "hr", "time", "img", "video", ...TEX_TAGS]);
const ATTRS = new Set(["href", "title", "class", "data-user-id", "data-user-group-id", "data-stream-id", "aria-label", "aria-hidden", "role", "src", "alt", "start", "datetime", "data-code-language", "data-video-original-url", "preload", "style", ...TEX_ATTRS]);
/** KaTeX's layout styles: known properties with lengths (or a color name or hex value) only; no url(), no expressions. */
const TEX_STYLE = /^(?:(?:height|vertical-align|top|bottom|margin-right|margin-left|padding-left|min-width|width|border-right-width|border-top-width|border-bottom-width|left|right):-?[\d.]+(?:em|ex|px|%)?;|color:(?:[a-z]+|#[0-9a-f]{3,6});)+$/i;
const URL_ATTRS = new Set(["href", "src", "data-video-original-url"]);
const SAFE_SCHEMES = new Set(["http", "https", "mailto", "tel", "sms", "ftp"]);

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Returns the problems found in `html` (empty when it is safe). */
function injectionProblems(html: string): string[] {
  const problems: string[] = [];
  const tagRe = /<(\/?)([a-zA-Z0-9]+)((?:\s+[a-zA-Z-]+="[^"<>]*")*)\s*\/?>/y;
  for (let i = 0; i < html.length; i++) {
    if (html[i] === ">") problems.push(`raw > at ${i}`);
    if (html[i] !== "<") continue;
    tagRe.lastIndex = i;
    const m = tagRe.exec(html);
    if (m === null) {
      problems.push(`malformed markup at ${i}: ${html.slice(i, i + 30)}`);
      continue;
    }
    if (!TAGS.has(m[2])) problems.push(`tag ${m[2]}`);
    for (const [, name, raw] of m[3].matchAll(/([a-zA-Z-]+)="([^"]*)"/g)) {
      const value = decodeEntities(raw);
      if (!ATTRS.has(name) || /^on/i.test(name)) problems.push(`attribute ${name}`);
      if (name === "style" && !/^text-align:(left|right|center)$/.test(value) && !TEX_STYLE.test(value)) problems.push(`style ${value}`);
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value.replace(/[\u0000-\u0020]/g, ""));
      if (URL_ATTRS.has(name) && scheme !== null && !SAFE_SCHEMES.has(scheme[1].toLowerCase())) problems.push(`${name} scheme ${value}`);
    }
    i = tagRe.lastIndex - 1;
  }
  if (/<script/i.test(html)) problems.push("raw script tag");
  return problems;
}

const CONTEXT: RenderContext = {
  realmUrl: "https://chat.example.com",
  users: [{ id: 5, full_name: '<img src=x onerror="alert(1)">', email: "evil@example.com" }, { id: 6, full_name: 'Quote " Person', email: "q@example.com" }],
  groups: [{ id: 9, name: "<script>alert(1)</script>", deactivated: false, can_mention: true }],
  channels: [{ id: 3, name: '"><svg onload=alert(1)>' }],
  linkifiers: [
    { pattern: "#(?P<id>[0-9]+)", url_template: 'https://tracker.example.com/"onmouseover="alert(1)/{id}' },
    { pattern: "JS-(?P<id>[a-z]+)", url_template: "javascript:alert('{id}')" },
    { pattern: "Q-(?P<id>\\S+)", url_template: "https://q.example.com/{+id}" },
  ],
  realmEmoji: [{ name: "evil", source_url: '/x" onerror="alert(1)', deactivated: false }],
  camo: { baseUrl: "https://camo.example.com/", key: "k" },
};

const HOSTILE = [
  "$$\\href{javascript:alert(1)}{x}$$ $$\\url{javascript:alert(1)}$$ $$\\htmlClass{x onload=alert(1)}{y}$$",
  "$$\\includegraphics{javascript:alert(1)}$$ $$\\sqrt{x}\\overrightarrow{AB}$$ $$\\color{red;background:url(x)}{y}$$",
  "```math\n\\text{<img src=x onerror=alert(1)>}\\rule{1em}{1em}\n```",
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  '<a href="javascript:alert(1)">x</a>',
  "[x](javascript:alert(1))",
  "[x](JaVaScRiPt:alert(1))",
  "[x](java\tscript:alert(1))",
  "[x](&#106;avascript:alert(1))",
  "[x](&#x6A;avascript:alert(1))",
  "[x](javascript&colon;alert(1))",
  "[x](vbscript:msgbox(1))",
  "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[x](<javascript:alert(1)>)",
  '[x](https://ok.example.com "title\\" onmouseover=\\"alert(1)")',
  '[x](https://ok.example.com/"onmouseover="alert(1))',
  "![x](javascript:alert(1))",
  "![x](https://example.com/a.png\" onerror=\"alert(1))",
  "<javascript:alert(1)>",
  "<vbscript:alert(1)>",
  "<data:text/html,<script>alert(1)</script>>",
  "javascript:alert(document.cookie)",
  "https://example.com/\"onmouseover=\"alert(1)",
  "https://example.com/<script>.png",
  "http://example.com/x.png?\"><script>alert(1)</script>",
  "&lt;script&gt;alert(1)&lt;/script&gt;",
  "&#60;script&#62;alert(1)&#60;/script&#62;",
  "&#x3C;img src=x onerror=alert(1)&#x3E;",
  "`<script>alert(1)</script>`",
  "```\n<script>alert(1)</script>\n```",
  '```"><script>alert(1)</script>\ncode\n```',
  "```python\" onmouseover=\"alert(1)\ncode\n```",
  "``` js'onload='x\ncode\n```",
  "```spoiler <img src=x onerror=alert(1)>\n<script>alert(1)</script>\n```",
  "```quote\n<script>alert(1)</script>\n```",
  "```math\n</span><script>alert(1)</script>\n```",
  "$$</span><script>alert(1)</script>$$",
  "> <script>alert(1)</script>\n>> <b onclick=alert(1)>x</b>",
  "* <script>\n  * </script>\n1. <iframe src=javascript:alert(1)>",
  "| a | <b>b</b> |\n|---|---|\n| <script> | x\" onclick=\"y |",
  "# <h1 onclick=alert(1)>x</h1>",
  "**<svg onload=alert(1)>**",
  "*<i onclick=x>*",
  "~~<s onmouseover=x>~~",
  "@**<img src=x onerror=\"alert(1)\">**",
  "@_**<img src=x onerror=\"alert(1)\">**",
  "@**Quote \" Person**",
  "@*<script>alert(1)</script>*",
  "@**<script>|5**",
  "#**\"><svg onload=alert(1)>**",
  "#**\"><svg onload=alert(1)>>\"><img src=x onerror=alert(1)>**",
  "#**\"><svg onload=alert(1)>>topic@1\"**",
  "<time:\"><script>alert(1)</script>>",
  "<time:2017-01-01T00:00:00Z\" onmouseover=\"x>",
  ":evil: :smile\" onmouseover=\"x: :<script>:",
  "#123 #456\"onclick=\"x JS-abc Q-\"><script>alert(1)</script>",
  "Q-a\"onmouseover=\"alert(1)",
  "[<script>alert(1)</script>](https://example.com)",
  "[x](https://example.com)<script>",
  "<<script>script>alert(1)<</script>/script>",
  "<scr<script>ipt>alert(1)</scr</script>ipt>",
  "[unterminated](https://example.com",
  "**unterminated *nested [link(javascript:x)",
  "```\nunterminated <script>",
  "<!-- <script>alert(1)</script> -->",
  "<style>body{}</style><iframe src=//evil>",
  "\uE0000\uE001",
  "mailto:x@example.com?body=<script>",
  "x@example.com\"onmouseover=\"alert(1)",
  "https://chat.example.com/#narrow/\"><script>alert(1)</script>",
  "https://chat.example.com/user_uploads/1/ab/x.png\"onerror=\"alert(1)",
  "[x](/user_uploads/1/ab/\"><script>.png)",
  `${">".repeat(3000)} <script>deep</script>`,
  Array.from({ length: 500 }, (_, i) => `${" ".repeat(i * 2)}* <b onclick=x>`).join("\n"),
  "```spoiler\n".repeat(300) + "<script>",
  `http://x.example/${"(".repeat(3000)}`,
];

test("hostile corpus: zero injections", () => {
  const failures: string[] = [];
  for (const input of HOSTILE) {
    const { html } = renderMessage(input, CONTEXT);
    const problems = injectionProblems(html);
    if (problems.length > 0) failures.push(`${JSON.stringify(input)} -> ${html}\n  ${problems.join("; ")}`);
  }
  assert.deepEqual(failures, []);
});

test("the checker itself catches injections", () => {
  assert.notDeepEqual(injectionProblems('<p onclick="x">a</p>'), []);
  assert.notDeepEqual(injectionProblems('<a href="javascript:alert(1)">a</a>'), []);
  assert.notDeepEqual(injectionProblems('<a href="&#106;avascript:alert(1)">a</a>'), []);
  assert.notDeepEqual(injectionProblems("<script>alert(1)</script>"), []);
  assert.notDeepEqual(injectionProblems("<p>a > b</p>"), []);
  assert.deepEqual(injectionProblems('<p><a href="https://x.example/?a=1&amp;b=2">&lt;script&gt;</a></p>'), []);
});

/** Shapes that stress one rule each: nesting, unclosed openers, long runs, many candidates. */
const STRESS: Record<string, (n: number) => string> = {
  prose: (n) => "a".repeat(n),
  proseThenHash: (n) => `${"a ".repeat(n / 2 - 1)}#`,
  dottedWords: (n) => `${"ab. ".repeat(n / 4 - 1)}x.y`,
  quoteMarkers: (n) => `${"> ".repeat(n / 2 - 1)}x`,
  openBrackets: (n) => "[".repeat(n),
  linkOpeners: (n) => "[a](".repeat(n / 4),
  emphasis: (n) => "*a **a ".repeat(n / 7),
  backtickRuns: (n) => "`a``b```c".repeat(n / 9),
  nestedQuoteFences: (n) => "```quote\n".repeat(n / 9),
  nestedSpoilers: (n) => "```spoiler a\n".repeat(n / 13),
  nestedLists: (n) => Array.from({ length: n / 40 }, (_, i) => `${" ".repeat((i * 2) % 64)}* x`).join("\n"),
  pathsToNowhere: (n) => `${"a.com/,".repeat(n / 7)})`,
  addressLike: (n) => "a@b.".repeat(n / 4),
  mentions: (n) => "@**".repeat(n / 3),
  emojiColons: (n) => ":".repeat(n),
  tables: (n) => `|a|b|\n|-|-|\n${"|a|b|\n".repeat(n / 6 - 2)}`,
  issueRefs: (n) => "#1 ".repeat(n / 3),
};

test("huge input never overflows the stack (messages are 10,000 characters; the renderer takes more)", () => {
  for (const [name, shape] of Object.entries(STRESS)) {
    assert.doesNotThrow(() => renderMessage(shape(name === "prose" ? 10_000_000 : 100_000), CONTEXT), name);
  }
});

test("every stress shape of a 10,000-character message renders in bounded time", () => {
  for (const [name, shape] of Object.entries(STRESS)) {
    const content = shape(10_000);
    const started = performance.now();
    renderMessage(content, CONTEXT);
    const ms = performance.now() - started;
    // Generous for a shared test machine: super-linear paths took seconds to minutes here.
    assert.ok(ms < 2000, `${name}: ${ms.toFixed(0)} ms`);
  }
});
