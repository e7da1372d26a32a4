/**
 * Code highlighted as upstream's server does it with Pygments: text pieces each with Pygments'
 * short token class (`k`, `nf`, `s2`...), which every Zulip client colours. The tokens come from
 * Prism (prismjs: its grammars are small, loaded per language on first use, and split code into
 * keywords, names, punctuation and operators much as Pygments' lexers do); markdown/pygments-profiles.ts
 * says how each language's tokens become Pygments' classes. Prism's grammars register themselves
 * on a global `Prism` while they load: it is there only for that moment.
 */
import { createRequire } from "node:module";
import { PROFILES, type Profile, type ProfileName, type Rule } from "./pygments-profiles.ts";

/** A piece of code and its Pygments class ("" for plain text). */
export type Piece = readonly [cls: string, text: string];

interface PrismToken {
  type: string;
  content: PrismContent;
  alias?: string | string[];
}
type PrismContent = string | PrismToken | Array<string | PrismToken>;
type Grammar = object;
interface PrismApi {
  languages: Record<string, Grammar | undefined>;
  tokenize(text: string, grammar: Grammar): Array<string | PrismToken>;
}

const requirePackage = createRequire(import.meta.url);
let prism: PrismApi | null = null;
const loadedComponents = new Set<string>();

/** Runs a Prism script (core or a grammar) with the global `Prism` it expects, then removes it. */
function withGlobalPrism<T>(api: PrismApi | null, load: () => T): T {
  const scope = globalThis as { Prism?: unknown };
  const had = Object.hasOwn(scope, "Prism");
  const before = scope.Prism;
  if (api !== null) scope.Prism = api;
  try {
    return load();
  } finally {
    if (had) scope.Prism = before;
    else delete scope.Prism;
  }
}

/** The grammar of a profile, loading Prism and the profile's components on first use. */
function grammarOf(profile: Profile): Grammar | null {
  const api = (prism ??= withGlobalPrism(null, () => requirePackage("prismjs/components/prism-core.js") as PrismApi));
  for (const component of profile.prism) {
    if (loadedComponents.has(component)) continue;
    withGlobalPrism(api, () => requirePackage(`prismjs/components/prism-${component}.js`));
    loadedComponents.add(component);
  }
  return api.languages[profile.prism[profile.prism.length - 1]] ?? null;
}

/** What Prism's token types become where the profile says nothing else. */
const COMMON: Readonly<Record<string, Rule>> = {
  comment: "comment",
  hashbang: { cls: "ch" },
  shebang: { cls: "ch" },
  prolog: { cls: "cp" },
  doctype: { cls: "cp" },
  cdata: { cls: "cp" },
  macro: { cls: "cp" },
  directive: { cls: "cp" },
  string: "string",
  "triple-quoted-string": "string",
  "string-literal": "string",
  char: { cls: "sc" },
  "template-string": "inner",
  "template-punctuation": { cls: "sb" },
  "string-interpolation": "inner",
  interpolation: "inner",
  "interpolation-punctuation": { cls: "si" },
  "format-spec": { cls: "si" },
  "conversion-option": { cls: "si" },
  regex: { cls: "sr" },
  symbol: { cls: "ss" },
  number: "number",
  boolean: { word: "kc" },
  null: { cls: "kc" },
  nil: { cls: "kc" },
  keyword: { word: "k" },
  builtin: { word: "nb" },
  function: "name",
  "function-variable": "name",
  "class-name": "name",
  constant: "name",
  property: "name",
  variable: { cls: "nv" },
  namespace: { cls: "nn" },
  decorator: { cls: "nd" },
  annotation: { cls: "nd" },
  tag: { cls: "nt" },
  "attr-name": { cls: "na" },
  "attr-value": { cls: "s" },
  entity: { cls: "ni" },
  selector: { cls: "nc" },
  url: { cls: "s" },
  deleted: { cls: "gd" },
  inserted: { cls: "gi" },
  operator: { cls: "o" },
  punctuation: { cls: "p" },
};

/** Classes whose tokens keep the whitespace inside them (strings, comments, generic text). */
const KEEPS_SPACE = /^(?:s|c|g|l|m)|^$/;
/** Untokenized text: whitespace, a number, a name, or other characters. */
const GAP = /(\s+)|(\p{N}[\p{L}\p{N}_$]*)|([\p{L}_$][\p{L}\p{N}_$]*)|[^\s\p{L}\p{N}_$]+/uy;

interface Context {
  rule: Rule;
  type: string;
  /** The type of the token this one is inside ("" at the top). */
  parentType: string;
  /** Whether this is inside a template string (JavaScript's `...`). */
  inTemplate: boolean;
  /** For a string token: its class, its prefix still to write, whether escapes count. */
  string?: { cls: string; prefix: string; parts: boolean };
}

/** The rule `table` gives a token's type, else one of its aliases. */
function ruleIn(table: Readonly<Record<string, Rule>>, token: PrismToken): Rule | undefined {
  const own = table[token.type];
  if (own !== undefined || token.alias === undefined) return own;
  if (typeof token.alias === "string") return table[token.alias];
  for (const alias of token.alias) if (table[alias] !== undefined) return table[alias];
  return undefined;
}

/** Each profile's string-part pattern, global, compiled once. */
const STRING_PARTS = new Map<RegExp, RegExp>();

function textOf(content: PrismContent): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(textOf).join("");
  return textOf(content.content);
}

function isStringRule(rule: Rule): boolean {
  return rule === "string" || (typeof rule === "object" && "cls" in rule && rule.cls.startsWith("s"));
}

function numberClass(text: string, profile: Profile): string {
  if (/^0[xX]/.test(text)) return "mh";
  if (/^0[oO]/.test(text)) return "mo";
  if (/^0[bB]/.test(text)) return "mb";
  if (/^\d+[lL]$/.test(text)) return "il";
  if (/[.eEjJ]/.test(text) || profile.intsAreFloats) return "mf";
  return "mi";
}

function commentClass(text: string, atStart: boolean): string {
  if (atStart && text.startsWith("#!")) return "ch";
  if (text.startsWith("/*") || text.startsWith("{-")) return "cm";
  if (text.startsWith("<!--") || text.startsWith("%") || text.startsWith("(*")) return "c";
  return "c1";
}

/** Turns Prism's token tree into Pygments-classed pieces for one profile. */
class Flattener {
  readonly pieces: Array<[string, string]> = [];
  private lastWord = "";
  private lastCls = "";
  private lineStart = true;
  private lineFirstWord = "";
  /** Whether the name being classed is one Prism saw called (a function). */
  private definingFunction = false;
  /** Whether whitespace came after the last word. */
  private afterSpace = false;

  constructor(private readonly profile: Profile) {}

  private push(cls: string, text: string): void {
    if (text === "") return;
    if (cls === "cpf") this.spaceBeforeFile();
    const last = this.pieces[this.pieces.length - 1];
    if (last !== undefined && last[0] === cls) last[1] += text;
    else this.pieces.push([cls, text]);
    const newline = text.lastIndexOf("\n");
    const tail = newline === -1 ? text : text.slice(newline + 1);
    if (newline !== -1) {
      this.lineStart = true;
      this.lineFirstWord = "";
    }
    if (this.lineStart) {
      const word = tail.trim();
      if (word !== "") {
        this.lineFirstWord = word;
        this.lineStart = false;
      }
    }
    const trimmed = text.trim();
    if (trimmed !== "") {
      this.lastWord = trimmed;
      this.lastCls = cls;
      this.afterSpace = false;
    }
  }

  private space(text: string): void {
    const indent = this.lineStart && this.profile.plainIndent && !text.includes("\n");
    const plain = indent || (this.profile.plainSpaceAfter.has(this.lastWord) && !text.includes("\n"));
    this.push(plain ? "" : this.profile.space, text);
    this.afterSpace = true;
  }

  /** The class `words` give a word, if any. */
  private word(text: string): string | undefined {
    return this.profile.words.get(this.profile.ignoreCase ? text.toLowerCase() : text);
  }

  /** A name: its own class, a definition's after a defining keyword, or the language's names' class. */
  private nameClass(word: string): string {
    const own = this.word(word);
    if (own !== undefined) return own;
    if (this.lastCls === "nn" && this.lastWord === ".") return "nn";
    if (this.profile.importLines && this.lineFirstWord === "import" && this.lastWord !== "as") return "nn";
    if (this.profile.typeAfterColon && this.lastWord === ":") return "kt";
    if (this.profile.typedDefinitions && this.afterSpace && this.lastCls === "kt" && this.definingFunction) return "nf";
    const defined = this.profile.defines.get(this.lastWord);
    if (defined !== undefined && !(this.lastWord === "import" && this.lineFirstWord === "from")) return defined;
    return this.profile.name;
  }

  /** Text no token classes: whitespace, names and numbers by the profile, the rest plain. */
  private gap(text: string): void {
    GAP.lastIndex = 0;
    for (let m = GAP.exec(text); m !== null; m = GAP.exec(text)) {
      const part = m[0];
      if (m[1] !== undefined) this.space(part);
      else if (m[2] !== undefined) this.push(this.profile.name === "" ? "" : numberClass(part, this.profile), part);
      else if (m[3] !== undefined) this.push(this.nameClass(part), part);
      else this.push("", part);
    }
  }

  /** Text of one class; names and keywords keep no whitespace inside. */
  private classed(cls: string, text: string): void {
    if (KEEPS_SPACE.test(cls) || !/\s/.test(text)) return this.push(cls, text);
    for (const [part] of text.matchAll(/\s+|\S+/g)) {
      if (/^\s/.test(part)) this.space(part);
      else this.push(cls, part);
    }
  }

  private stringText(text: string, string: NonNullable<Context["string"]>): void {
    let rest = text;
    if (string.prefix !== "" && rest.startsWith(string.prefix)) {
      this.push("sa", string.prefix);
      rest = rest.slice(string.prefix.length);
      string.prefix = "";
    }
    const parts = string.parts ? this.profile.stringParts : null;
    if (parts === null) return this.push(string.cls, rest);
    let pattern = STRING_PARTS.get(parts);
    if (pattern === undefined) STRING_PARTS.set(parts, (pattern = new RegExp(parts.source, "g")));
    pattern.lastIndex = 0;
    let at = 0;
    for (const m of rest.matchAll(pattern)) {
      const index = m.index ?? 0;
      this.push(string.cls, rest.slice(at, index));
      this.push(m[0].startsWith("\\") ? "se" : "si", m[0]);
      at = index + m[0].length;
    }
    this.push(string.cls, rest.slice(at));
  }

  /** Pygments' C lexer reads the space between `#include` and its file as Whitespace. */
  private spaceBeforeFile(): void {
    const last = this.pieces[this.pieces.length - 1];
    const space = last !== undefined && last[0] === "cp" ? /[ \t]+$/.exec(last[1]) : null;
    if (last === undefined || space === null) return;
    last[1] = last[1].slice(0, space.index);
    if (last[1] === "") this.pieces.pop();
    this.pieces.push(["w", space[0]]);
  }

  /** Pygments' Python lexer reads the indentation before a docstring as Whitespace (w). */
  private indentBeforeDocstring(): void {
    const last = this.pieces[this.pieces.length - 1];
    const indent = last !== undefined && last[0] === "" ? /(?:^|\n)([ \t]+)$/.exec(last[1]) : null;
    if (last === undefined || indent === null) return;
    last[1] = last[1].slice(0, last[1].length - indent[1].length);
    if (last[1] === "") this.pieces.pop();
    this.pieces.push(["w", indent[1]]);
  }

  private startString(token: PrismToken, inTemplate: boolean): NonNullable<Context["string"]> {
    const whole = textOf(token.content);
    const prefix = this.profile.stringPrefix?.exec(whole)?.[0] ?? "";
    const body = whole.slice(prefix.length);
    const raw = /[rR]/.test(prefix);
    if (inTemplate) return { cls: "sb", prefix, parts: !raw };
    if (this.profile.docstrings && this.lineStart && /^("""|''')/.test(body)) {
      this.indentBeforeDocstring();
      return { cls: "sd", prefix, parts: false };
    }
    const quote = body[0];
    const cls = quote === "`" ? "sb" : !this.profile.quoteClasses ? "s" : quote === '"' ? "s2" : quote === "'" ? "s1" : "s";
    return { cls, prefix, parts: !raw };
  }

  private ruleOf(token: PrismToken, parent: Context): Rule {
    const { types } = this.profile;
    const nested = this.profile.nested[parent.type]?.[token.type];
    if (nested !== undefined) return nested;
    if (typeof parent.rule === "object" && "absorbs" in parent.rule) return parent.rule;
    const own = ruleIn(types, token);
    if (own !== undefined) return own;
    if (token.type === "punctuation" && isStringRule(parent.rule)) return parent.rule;
    return ruleIn(COMMON, token) ?? parent.rule;
  }

  private text(text: string, ctx: Context): void {
    const rule = ctx.rule;
    if (rule === "inner") return this.gap(text);
    if (rule === "string") return ctx.string === undefined ? this.push("s", text) : this.stringText(text, ctx.string);
    if (rule === "comment") return this.push(commentClass(text, this.pieces.length === 0), text);
    if (rule === "number") return this.push(numberClass(text, this.profile), text);
    if (rule === "name") {
      this.definingFunction = ctx.type === "function";
      const cls = this.nameClass(text.trim());
      this.definingFunction = false;
      return this.classed(cls, text);
    }
    if ("word" in rule) return this.classed(this.word(text.trim()) ?? rule.word, text);
    if (rule.cls === "o" || rule.cls === "p") return this.symbol(rule.cls, text, ctx);
    return this.classed(rule.cls, text);
  }

  private symbol(cls: string, text: string, ctx: Context): void {
    const own = this.profile.symbols[text];
    if (cls === "p" && ctx.parentType === "interpolation" && (text === "{" || text === "}" || text === ":")) return this.push("si", text);
    if (text === "," && this.profile.importLines && this.lineFirstWord === "import") return this.push("o", text);
    if (/^\w+$/.test(text)) return this.push(this.word(text) ?? "ow", text);
    if (text === "." && this.lastCls === "nn") return this.push("nn", text);
    this.push(own ?? this.profile.symbols["*"] ?? cls, text);
  }

  walk(content: PrismContent, ctx: Context): void {
    if (typeof content === "string") return this.text(content, ctx);
    if (Array.isArray(content)) {
      for (const item of content) this.walk(item, ctx);
      return;
    }
    const rule = this.ruleOf(content, ctx);
    const inTemplate = ctx.inTemplate || content.type === "template-string";
    const string = rule === "string" ? this.startString(content, inTemplate) : rule === ctx.rule ? ctx.string : undefined;
    this.walk(content.content, { rule, type: content.type, parentType: ctx.type, inTemplate, string });
  }
}

/** Pieces of `code` highlighted as `profile`'s language, or null when it has no grammar. */
export function highlightPieces(code: string, profileName: ProfileName): Piece[] | null {
  const profile: Profile = PROFILES[profileName];
  if (profile.lexer !== null) return profile.lexer(code);
  const grammar = grammarOf(profile);
  if (grammar === null || prism === null) return null;
  const flattener = new Flattener(profile);
  flattener.walk(prism.tokenize(code, grammar), { rule: "inner", type: "", parentType: "", inTemplate: false });
  return flattener.pieces;
}
