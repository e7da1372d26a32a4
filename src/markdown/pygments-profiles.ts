// How each highlighted language's Prism tokens become Pygments' short token classes (what
// upstream's server writes and every Zulip client colours): Prism's grammar for the language,
// and where Pygments' lexer for it classes things differently from the common map in
// markdown/highlight.ts. Checked against Pygments for the corpus' languages (Python, TeX, PHP)
// and, by sampling, the common ones; elsewhere close, not exact.
import type { Piece } from "./highlight.ts";
import { diffPieces, texPieces } from "./small-lexers.ts";

/** What a Prism token type becomes. A Pygments class ("" for plain text), or a rule. */
export type Rule =
  | { cls: string }
  /** A class its nested tokens take too (PHP's "$x" inside a string is all si). */
  | { cls: string; absorbs: true }
  /** A word: the profile's `words` first, then `cls`. */
  | { word: string }
  /** Classed by its quotes and prefix (s1, s2, sb, sd, sa, se...). */
  | "string"
  /** Classed by its opening characters (c1, cm, ch, c...). */
  | "comment"
  /** mi, mf, mh, mo, mb, il. */
  | "number"
  /** A definition's name after a defining keyword (nf, nc, nn), else a plain name. */
  | "name"
  /** Classes nothing itself: its nested tokens have theirs, its text is lexed as code. */
  | "inner";

export interface Profile {
  /** Prism components to load, dependencies first; the last one's grammar highlights. */
  prism: readonly string[];
  /** A lexer of our own that gives the pieces instead (markdown/small-lexers.ts). */
  lexer: ((code: string) => Piece[]) | null;
  /** Class of the identifiers Prism leaves plain ("" where Pygments leaves words as text). */
  name: string;
  /** Class of whitespace between tokens: "w" where Pygments' lexer marks it Whitespace. */
  space: "" | "w";
  /** Whether "..." and '...' are s2 and s1 (else both are s). */
  quoteClasses: boolean;
  /** Words with a class of their own wherever they appear as a keyword, builtin or name. */
  words: ReadonlyMap<string, string>;
  /** Whether `words` are matched ignoring case (their keys then are lower case). */
  ignoreCase: boolean;
  /** Keywords after which the next name is a definition's: a function (nf), class (nc) or module (nn). */
  defines: ReadonlyMap<string, string>;
  /** Prism types (or aliases) this language classes otherwise than the common map. */
  types: Readonly<Record<string, Rule>>;
  /** Rules of token types inside a token of another type: parent type, then child type. */
  nested: Readonly<Record<string, Readonly<Record<string, Rule>>>>;
  /** Operator or punctuation text classed otherwise (Python's "." is an operator); "*" for any other. */
  symbols: Readonly<Record<string, string>>;
  /** A function named right after a type and a space is being defined (nf), as Pygments' C and Java lexers read it. */
  typedDefinitions: boolean;
  /** Keywords whose following whitespace Pygments leaves plain where other whitespace is "w". */
  plainSpaceAfter: ReadonlySet<string>;
  /** A name after "name:" is a type (kt), as Pygments' TypeScript lexer has it. */
  typeAfterColon: boolean;
  /** Decimal integers are floats (JavaScript's numbers are). */
  intsAreFloats: boolean;
  /** Escapes (se) and interpolations (si) inside non-raw strings, or null. */
  stringParts: RegExp | null;
  /** Letters before a quote that are a string prefix (sa), or null. */
  stringPrefix: RegExp | null;
  /** A triple-quoted string alone at the start of its line is a docstring (sd). */
  docstrings: boolean;
  /** In a line starting with `import`, names are modules (nn) and commas operators, as in Python. */
  importLines: boolean;
  /** Whitespace starting a line is plain even where other whitespace is "w" (Python's, before a docstring aside). */
  plainIndent: boolean;
}

const words = (table: Record<string, string>): ReadonlyMap<string, string> =>
  new Map(Object.entries(table).flatMap(([cls, list]) => list.split(" ").map((w): [string, string] => [w, cls])));

/** Backslash escapes of C-like strings. */
const C_ESCAPES = /\\(?:x[0-9a-fA-F]{2,4}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|[\s\S])/;
/** Python's escapes, %-formats and str.format fields. */
const PYTHON_STRING_PARTS = new RegExp(
  [
    String.raw`\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}\n]*\}|[0-7]{1,3}|[\s\S])`,
    String.raw`%(?:\(\w+\))?[-#0 +]*(?:[0-9]+|[*])?(?:\.(?:[0-9]+|[*]))?[hlL]?[E-GXc-giorsaux%]`,
    String.raw`\{(?:\w+(?:\.\w+|\[[^\]\n]+\])*)?(?:![sra])?(?::(?:.?[<>=^])?[-+ ]?#?0?[0-9]*,?(?:\.[0-9]+)?[E-GXb-gnosx%]?)?\}`,
  ].join("|"),
);

const BASE: Profile = {
  prism: [],
  lexer: null,
  name: "n",
  space: "w",
  quoteClasses: false,
  words: new Map(),
  ignoreCase: false,
  defines: new Map(),
  types: {},
  nested: {},
  symbols: {},
  typedDefinitions: false,
  plainSpaceAfter: new Set(),
  typeAfterColon: false,
  intsAreFloats: false,
  stringParts: C_ESCAPES,
  stringPrefix: null,
  docstrings: false,
  plainIndent: false,
  importLines: false,
};

const PYTHON_EXCEPTIONS =
  "ArithmeticError AssertionError AttributeError BaseException BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError EnvironmentError Exception FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError";

const PYTHON_MAGIC_VARIABLES =
  "__all__ __annotations__ __builtins__ __cached__ __class__ __debug__ __defaults__ __dict__ __doc__ __file__ __func__ __globals__ __kwdefaults__ __module__ __mro__ __name__ __objclass__ __qualname__ __self__ __slots__ __weakref__";
const PYTHON_MAGIC_METHODS =
  "__abs__ __add__ __aenter__ __aexit__ __aiter__ __and__ __anext__ __await__ __bool__ __bytes__ __call__ __complex__ __contains__ __del__ __delattr__ __delete__ __delitem__ __dir__ __divmod__ __enter__ __eq__ __exit__ __float__ __floordiv__ __format__ __ge__ __get__ __getattr__ __getattribute__ __getitem__ __gt__ __hash__ __iadd__ __iand__ __ifloordiv__ __ilshift__ __imatmul__ __imod__ __imul__ __index__ __init__ __instancecheck__ __int__ __invert__ __ior__ __ipow__ __irshift__ __isub__ __iter__ __itruediv__ __ixor__ __le__ __len__ __length_hint__ __lshift__ __lt__ __matmul__ __missing__ __mod__ __mul__ __ne__ __neg__ __new__ __next__ __or__ __pos__ __pow__ __prepare__ __radd__ __rand__ __rdivmod__ __repr__ __reversed__ __rfloordiv__ __rlshift__ __rmatmul__ __rmod__ __rmul__ __ror__ __round__ __rpow__ __rrshift__ __rshift__ __rsub__ __rtruediv__ __rxor__ __set__ __setattr__ __setitem__ __str__ __sub__ __subclasscheck__ __truediv__ __xor__";

const PYTHON: Profile = {
  ...BASE,
  prism: ["python"],
  space: "",
  quoteClasses: true,
  words: words({
    kn: "import from",
    kc: "True False None",
    ow: "and or not in is",
    bp: "self cls Ellipsis NotImplemented",
    nb: "print exec",
    ne: PYTHON_EXCEPTIONS,
    vm: PYTHON_MAGIC_VARIABLES,
    fm: PYTHON_MAGIC_METHODS,
  }),
  defines: words({ nf: "def", nc: "class", nn: "import from" }),
  // An f-string's format spec (after "{x:") is string text to Pygments.
  types: { "format-spec": { cls: "s2" } },
  symbols: { ".": "o" },
  stringParts: PYTHON_STRING_PARTS,
  stringPrefix: /^[rRuUbBfF]{1,2}(?=["'])/,
  docstrings: true,
  plainIndent: true,
  importLines: true,
};

const PYTHON2: Profile = {
  ...PYTHON,
  words: words({
    kn: "import from",
    ow: "and or not in is",
    bp: "self cls Ellipsis NotImplemented True False None",
    k: "print exec",
    ne: PYTHON_EXCEPTIONS,
    vm: PYTHON_MAGIC_VARIABLES,
    fm: PYTHON_MAGIC_METHODS,
  }),
};

/** Pygments' JavaScript words (its lexer tries them in this order, so "in" is an operator). */
const JS_WORDS = {
  kr: "constructor from as abstract boolean byte char double enum final float goto implements int interface long native package private protected public short synchronized throws transient volatile",
  k: "for while do break return continue switch case default if else throw try catch finally yield await async this of static export import debugger extends super",
  ow: "typeof instanceof in void delete new",
  kd: "var let const with function class",
  kc: "true false null NaN Infinity undefined",
  nb: "Array Boolean Date BigInt Function Math ArrayBuffer Number Object RegExp String Promise Proxy decodeURI decodeURIComponent encodeURI encodeURIComponent eval isFinite isNaN parseFloat parseInt DataView document window globalThis global Symbol Intl WeakSet WeakMap Set Map Reflect JSON Atomics Int8Array Int16Array Int32Array BigInt64Array Float32Array Float64Array Uint8ClampedArray Uint8Array Uint16Array Uint32Array BigUint64Array",
  ne: "Error EvalError InternalError RangeError ReferenceError SyntaxError TypeError URIError",
};

const JAVASCRIPT: Profile = {
  ...BASE,
  prism: ["clike", "javascript"],
  name: "nx",
  quoteClasses: true,
  words: words(JS_WORDS),
  types: { "literal-property": "name", "string-property": "string", parameter: "inner" },
  symbols: { ":": "o", "?": "o", "...": "p", "=>": "p" },
  intsAreFloats: true,
  stringParts: null,
};

const TYPESCRIPT: Profile = {
  ...JAVASCRIPT,
  prism: ["clike", "javascript", "typescript"],
  words: words({ ...JS_WORDS, k: `${JS_WORDS.k} abstract implements private protected public readonly`, kd: `${JS_WORDS.kd} enum interface override`, kr: `${JS_WORDS.kr.replace(/\b(abstract|implements|private|protected|public|enum|interface) /g, "")} declare type`, kt: "string boolean number" }),
  typeAfterColon: true,
};

const PHP: Profile = {
  ...BASE,
  prism: ["markup", "markup-templating", "php"],
  name: "nx",
  space: "",
  quoteClasses: true,
  // Pygments' PHP lexer ignores case, so its keyword TRUE takes true as well.
  words: words({ k: "true false null TRUE FALSE NULL this" }),
  defines: words({ nf: "function", nc: "class", na: "-> ::" }),
  types: { variable: { cls: "nv" }, interpolation: { cls: "si", absorbs: true }, "class-name-definition": "name", "function-definition": "name", property: "name" },
  symbols: { "->": "o", "::": "o", ".": "o" },
};

const TEX: Profile = { ...BASE, lexer: texPieces };

const C_FAMILY: Profile = {
  ...BASE,
  words: words({ kt: "void char short int long float double signed unsigned bool _Bool size_t auto wchar_t", nb: "true false NULL", kr: "nullptr" }),
  defines: words({ nc: "class struct enum union interface", nn: "namespace" }),
  types: { macro: { cls: "cp", absorbs: true } },
  nested: { macro: { string: { cls: "cpf" } } },
  symbols: { "::": "o" },
  typedDefinitions: true,
};

const JAVA: Profile = {
  ...C_FAMILY,
  prism: ["clike", "java"],
  words: words({
    k: "assert break case catch continue default do else finally for if goto instanceof new return switch this throw try while",
    kd: "abstract const enum extends final implements native private protected public sealed static strictfp super synchronized throws transient volatile yield class interface var record",
    kt: "boolean byte char double float int long short void",
    kc: "true false null",
    kn: "import package",
  }),
  defines: words({ nc: "class interface", nn: "import package", na: "." }),
  types: { annotation: { cls: "nd" }, namespace: { cls: "nn" }, generics: "inner" },
  symbols: { "[": "o", "]": "o", "<": "o", ">": "o" },
  plainSpaceAfter: new Set(["class", "interface"]),
};

const GO: Profile = {
  ...BASE,
  prism: ["clike", "go"],
  name: "nx",
  words: words({ kd: "var const func type struct interface map chan", kn: "package import", kt: "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr", kc: "true false nil iota" }),
  types: { builtin: { word: "nb" } },
};

const RUST: Profile = {
  ...BASE,
  prism: ["rust"],
  words: words({ kt: "bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64", kc: "true false", kd: "let", bp: "self Self" }),
  defines: words({ nf: "fn", nc: "struct enum trait type union", nn: "mod use crate" }),
  types: { macro: { cls: "fm" }, attribute: { cls: "cp" }, "lifetime-annotation": { cls: "nl" } },
};

const RUBY: Profile = {
  ...BASE,
  prism: ["clike", "ruby"],
  quoteClasses: true,
  words: words({ kc: "true false nil", bp: "self", nb: "puts print require" }),
  defines: words({ nf: "def", nc: "class", nn: "module" }),
  types: { symbol: { cls: "ss" }, constant: { cls: "no" }, variable: { cls: "vi" } },
};

const BASH: Profile = {
  ...BASE,
  prism: ["bash"],
  name: "",
  quoteClasses: true,
  types: { variable: { cls: "nv" }, "assign-left": { cls: "nv" }, "for-or-select": { cls: "" }, function: { cls: "" }, builtin: { cls: "nb" }, environment: { cls: "nv" }, parameter: { cls: "" }, shebang: { cls: "ch" }, "file-descriptor": { cls: "m" }, number: { cls: "m" }, entity: { cls: "se" } },
  symbols: { "[": "o", "]": "o", "{": "o", "}": "o", "(": "o", ")": "o", "=": "o", "&&": "o", "||": "o", ";": "p", "*": "" },
  stringParts: null,
};

const SQL: Profile = {
  ...BASE,
  prism: ["sql"],
  quoteClasses: true,
  // Pygments' SQL lexer reads keywords in any case.
  words: words({ k: "and or not in is like between exists null all any some case when then else end as on join" }),
  ignoreCase: true,
  types: { function: { word: "n" }, identifier: { cls: "n" }, variable: { cls: "nv" }, boolean: { word: "k" } },
  stringParts: null,
};

const JSON_PROFILE: Profile = {
  ...BASE,
  prism: ["json"],
  quoteClasses: true,
  types: { property: { cls: "nt" }, null: { cls: "kc" } },
  symbols: { ":": "p" },
  stringParts: null,
};

const MARKUP: Profile = {
  ...BASE,
  prism: ["markup"],
  name: "",
  space: "",
  types: { tag: { cls: "nt" }, "attr-value": { cls: "s" }, "attr-equals": { cls: "o" }, entity: { cls: "ni" }, comment: { cls: "cm" }, doctype: { cls: "cp", absorbs: true }, prolog: { cls: "cp", absorbs: true }, cdata: { cls: "cp", absorbs: true } },
  stringParts: null,
};

const CSS: Profile = {
  ...BASE,
  prism: ["css"],
  name: "",
  types: { selector: { cls: "nc" }, property: { cls: "k" }, atrule: "inner", rule: { cls: "k" }, url: { cls: "s" }, function: { cls: "nb" }, important: { cls: "k" } },
  symbols: { ":": "o" },
  stringParts: null,
};

const MARKDOWN: Profile = {
  ...BASE,
  prism: ["markup", "markdown"],
  name: "",
  space: "",
  types: { title: { cls: "gh" }, bold: { cls: "gs" }, italic: { cls: "ge" }, strike: { cls: "gd" }, code: { cls: "sb" }, "code-snippet": { cls: "sb" }, url: "inner", list: { cls: "k" }, blockquote: { cls: "k" }, hr: { cls: "k" } },
  stringParts: null,
};

const DIFF: Profile = { ...BASE, lexer: diffPieces };

const YAML: Profile = {
  ...BASE,
  prism: ["yaml"],
  name: "",
  types: { key: { cls: "nt" }, atrule: { cls: "nt" }, scalar: { cls: "s" }, important: { cls: "l" }, directive: { cls: "cp" }, tag: { cls: "kt" } },
  stringParts: null,
};

const clike = (grammar: readonly string[], extra: Partial<Profile> = {}): Profile => ({ ...C_FAMILY, prism: grammar, ...extra });

export const PROFILES = {
  python: PYTHON,
  python2: PYTHON2,
  javascript: JAVASCRIPT,
  typescript: TYPESCRIPT,
  jsx: { ...JAVASCRIPT, prism: ["clike", "javascript", "markup", "jsx"] },
  tsx: { ...JAVASCRIPT, prism: ["clike", "javascript", "typescript", "markup", "jsx", "tsx"] },
  json: JSON_PROFILE,
  tex: TEX,
  php: PHP,
  html: MARKUP,
  xml: MARKUP,
  css: CSS,
  scss: { ...CSS, prism: ["css", "scss"] },
  c: clike(["clike", "c"]),
  cpp: clike(["clike", "c", "cpp"]),
  csharp: clike(["clike", "csharp"]),
  objectivec: clike(["clike", "c", "objectivec"]),
  java: JAVA,
  kotlin: { ...JAVA, prism: ["clike", "kotlin"], defines: words({ nf: "fun", nc: "class interface object" }) },
  scala: { ...JAVA, prism: ["clike", "java", "scala"], defines: words({ nf: "def", nc: "class trait object" }) },
  groovy: { ...JAVA, prism: ["clike", "groovy"] },
  go: GO,
  rust: RUST,
  swift: clike(["swift"], { defines: words({ nf: "func", nc: "class struct enum protocol extension" }) }),
  dart: clike(["clike", "dart"]),
  ruby: RUBY,
  perl: { ...RUBY, prism: ["perl"], defines: words({ nf: "sub", nn: "package use" }) },
  lua: { ...BASE, prism: ["lua"], space: "" as const, defines: words({ nf: "function" }) },
  r: { ...BASE, prism: ["r"] },
  julia: { ...BASE, prism: ["julia"], defines: words({ nf: "function", nc: "struct" }) },
  haskell: { ...BASE, prism: ["haskell"] },
  elixir: { ...RUBY, prism: ["elixir"] },
  erlang: { ...BASE, prism: ["erlang"] },
  clojure: { ...BASE, prism: ["clojure"], name: "nv" },
  ocaml: { ...BASE, prism: ["ocaml"], space: "" as const },
  bash: BASH,
  console: { ...BASH, prism: ["bash", "shell-session"], types: { ...BASH.types, "shell-symbol": { cls: "gp" }, info: { cls: "gp" }, user: { cls: "gp" }, path: { cls: "gp" }, output: { cls: "go" }, command: "inner" } },
  powershell: { ...BASE, prism: ["powershell"], space: "" as const, types: { variable: { cls: "nv" } } },
  sql: SQL,
  yaml: YAML,
  toml: { ...YAML, prism: ["toml"], types: { key: { cls: "n" }, table: { cls: "kd" }, date: { cls: "ld" } } },
  ini: { ...BASE, prism: ["ini"], name: "", types: { section: { cls: "k" }, key: { cls: "nn" }, value: { cls: "s" } } },
  docker: { ...BASH, prism: ["docker"] },
  makefile: { ...BASH, prism: ["makefile"], types: { ...BASH.types, target: { cls: "nf" }, symbol: { cls: "nf" } } },
  nginx: { ...BASE, prism: ["nginx"], name: "" },
  protobuf: clike(["clike", "protobuf"]),
  graphql: { ...BASE, prism: ["graphql"], types: { "attr-name": { cls: "nn" }, "class-name": { cls: "nc" }, fragment: { cls: "nf" } } },
  markdown: MARKDOWN,
  diff: DIFF,
} satisfies Record<string, Profile>;

export type ProfileName = keyof typeof PROFILES;
