// Code blocks as upstream renders them without Pygments highlighting (its accepted
// `marked_expected_output` form): <div class="codehilite" data-code-language="..."><pre>...
import { escapeCode, tag } from "./escape.ts";

/** Language aliases and the display name upstream puts in data-code-language (Pygments' lexer name). */
const LANGUAGES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["Python", ["python", "py", "py3", "python3", "sage", "bazel", "starlark"]],
  ["Python 2.x", ["python2", "py2"]],
  ["JavaScript", ["javascript", "js"]],
  ["TypeScript", ["typescript", "ts"]],
  ["JSON", ["json"]],
  ["TeX", ["tex", "latex"]],
  ["PHP", ["php", "php3", "php4", "php5"]],
  ["CSS+PHP", ["css+php"]],
  ["HTML+PHP", ["html+php"]],
  ["JavaScript+PHP", ["javascript+php", "js+php"]],
  ["XML+PHP", ["xml+php"]],
  ["HTML", ["html"]],
  ["CSS", ["css"]],
  ["XML", ["xml"]],
  ["C", ["c"]],
  ["C++", ["cpp", "c++"]],
  ["C#", ["csharp", "c#", "cs"]],
  ["Java", ["java"]],
  ["Go", ["go", "golang"]],
  ["Rust", ["rust", "rs"]],
  ["Ruby", ["ruby", "rb"]],
  ["Bash", ["bash", "sh", "shell", "zsh", "ksh"]],
  ["Console", ["console", "shell-session"]],
  ["SQL", ["sql"]],
  ["YAML", ["yaml", "yml"]],
  ["Markdown", ["markdown", "md"]],
  ["Diff", ["diff", "udiff"]],
  ["Kotlin", ["kotlin"]],
  ["Swift", ["swift"]],
  ["Dart", ["dart"]],
  ["Haskell", ["haskell", "hs"]],
  ["Text only", ["text"]],
];

const DISPLAY_NAMES = new Map(LANGUAGES.flatMap(([display, aliases]) => aliases.map((a): [string, string] => [a, display])));

/** The data-code-language value for a fence's language, or null for none. */
function codeLanguage(lang: string): string | null {
  if (lang === "") return null;
  return DISPLAY_NAMES.get(lang.toLowerCase()) ?? lang;
}

/**
 * Trailing whitespace per line dropped, leading and trailing blank lines dropped. (trimEnd, not
 * /\s+$/: that regex retries from every whitespace character, quadratic on a long run of them.)
 */
function normalizeCode(text: string): string {
  const lines = text.split("\n").map((l) => l.trimEnd());
  let first = 0;
  let end = lines.length;
  while (first < end && lines[first] === "") first++;
  while (end > first && lines[end - 1] === "") end--;
  return lines.slice(first, end).join("\n");
}

/** HTML of a code block (ends with a newline, like every block). */
export function codeBlockHtml(code: string, lang: string): string {
  const body = `<pre><span></span><code>${escapeCode(normalizeCode(code), lang !== "")}\n</code></pre>`;
  return `${tag("div", [["class", "codehilite"], ["data-code-language", codeLanguage(lang)]], body)}\n`;
}
