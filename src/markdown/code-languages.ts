// The languages a fenced code block may name: Pygments' lexer names (what upstream puts in
// data-code-language) with their aliases, and which of them we highlight (markdown/pygments-profiles.ts).
import type { ProfileName } from "./pygments-profiles.ts";

/** A language's display name (Pygments' lexer name), its aliases, and its highlighting profile. */
type LanguageRow = readonly [display: string, aliases: readonly string[], profile: ProfileName | null];

/** Display names and aliases as Pygments has them (upstream canonicalizes through Pygments). */
const LANGUAGES: readonly LanguageRow[] = [
  ["Python", ["python", "py", "py3", "python3", "sage", "bazel", "starlark"], "python"],
  ["Python 2.x", ["python2", "py2"], "python2"],
  ["JavaScript", ["javascript", "js"], "javascript"],
  ["TypeScript", ["typescript", "ts"], "typescript"],
  ["JSX", ["jsx", "react"], "jsx"],
  ["TSX", ["tsx"], "tsx"],
  ["JSON", ["json", "json-object"], "json"],
  ["TeX", ["tex", "latex"], "tex"],
  // Upstream highlights every PHP variant with startinline: as PHP code, without `<?php`.
  ["PHP", ["php", "php3", "php4", "php5"], "php"],
  ["CSS+PHP", ["css+php"], "php"],
  ["HTML+PHP", ["html+php"], "php"],
  ["JavaScript+PHP", ["javascript+php", "js+php"], "php"],
  ["XML+PHP", ["xml+php"], "php"],
  ["HTML", ["html"], "html"],
  ["CSS", ["css"], "css"],
  ["SCSS", ["scss"], "scss"],
  ["XML", ["xml"], "xml"],
  ["C", ["c"], "c"],
  ["C++", ["cpp", "c++"], "cpp"],
  ["C#", ["csharp", "c#", "cs"], "csharp"],
  ["Objective-C", ["objective-c", "objectivec", "obj-c", "objc"], "objectivec"],
  ["Java", ["java"], "java"],
  ["Kotlin", ["kotlin"], "kotlin"],
  ["Scala", ["scala"], "scala"],
  ["Groovy", ["groovy"], "groovy"],
  ["Go", ["go", "golang"], "go"],
  ["Rust", ["rust", "rs"], "rust"],
  ["Swift", ["swift"], "swift"],
  ["Dart", ["dart"], "dart"],
  ["Ruby", ["ruby", "rb", "duby"], "ruby"],
  ["Perl", ["perl", "pl"], "perl"],
  ["Lua", ["lua"], "lua"],
  ["S", ["splus", "s", "r"], "r"],
  ["Julia", ["julia", "jl"], "julia"],
  ["Haskell", ["haskell", "hs"], "haskell"],
  ["Elixir", ["elixir", "ex", "exs"], "elixir"],
  ["Erlang", ["erlang"], "erlang"],
  ["Clojure", ["clojure", "clj"], "clojure"],
  ["OCaml", ["ocaml"], "ocaml"],
  ["Bash", ["bash", "sh", "ksh", "zsh", "shell"], "bash"],
  ["Bash Session", ["console", "shell-session"], "console"],
  ["PowerShell", ["powershell", "pwsh", "posh", "ps1", "psm1"], "powershell"],
  ["SQL", ["sql"], "sql"],
  ["YAML", ["yaml"], "yaml"],
  ["TOML", ["toml"], "toml"],
  ["INI", ["ini", "cfg", "dosini"], "ini"],
  ["Docker", ["docker", "dockerfile"], "docker"],
  ["Makefile", ["make", "makefile", "mf", "bsdmake"], "makefile"],
  ["Nginx configuration file", ["nginx"], "nginx"],
  ["Protocol Buffer", ["protobuf", "proto"], "protobuf"],
  ["GraphQL", ["graphql"], "graphql"],
  ["Markdown", ["markdown", "md"], "markdown"],
  ["Diff", ["diff", "udiff"], "diff"],
  ["Text only", ["text"], null],
];

const BY_ALIAS = new Map(LANGUAGES.flatMap((row) => row[1].map((alias): [string, LanguageRow] => [alias, row])));

/** The data-code-language value for a fence's language: Pygments' name, or the language as given. */
export function codeLanguageName(lang: string): string {
  return BY_ALIAS.get(lang.toLowerCase())?.[0] ?? lang;
}

/** How code in `lang` is highlighted, or null when it stays plain (unknown languages, text). */
export function codeLanguageProfile(lang: string): ProfileName | null {
  return BY_ALIAS.get(lang.toLowerCase())?.[2] ?? null;
}
