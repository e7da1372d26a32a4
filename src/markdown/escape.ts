// HTML escaping and the one tag builder every plugin uses, so no user text reaches markup unescaped.

/** Escapes text content the way Zulip's serializer does: only &, < and >. */
export function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escapes an attribute value (double-quoted): &, <, > and ". */
export function escapeAttr(value: string): string {
  return escapeText(value).replace(/"/g, "&quot;");
}

/**
 * Escapes code-block text as upstream's output has it. Pygments escapes &, <, >, " and ' (as
 * `&#39;`); a block with a language then goes through lxml to gain its data-code-language, and
 * lxml writes text back with only &, < and > escaped.
 */
export function escapeCode(text: string, hasLanguage: boolean): string {
  return text.replace(hasLanguage ? LXML_SPECIAL : PYGMENTS_SPECIAL, (c) => CODE_ENTITIES[c]);
}

const LXML_SPECIAL = /[&<>]/g;
const PYGMENTS_SPECIAL = /[&<>"']/g;
const CODE_ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes like Python's html.escape (used by upstream for TeX error text in display math). */
export function escapePython(text: string): string {
  return escapeAttr(text).replace(/'/g, "&#x27;");
}

/** Attribute list in output order; a null value drops the attribute. */
export type Attrs = ReadonlyArray<readonly [string, string | null]>;

const ATTR_NAME = /^[a-z][a-z0-9-]*$/;

/** Builds `<tag a="v">inner</tag>`; `innerHtml` must already be safe HTML. Void tags get no closing tag. */
export function tag(name: string, attrs: Attrs, innerHtml: string | null = ""): string {
  const parts = attrs
    .filter((a): a is readonly [string, string] => a[1] !== null)
    .map(([key, value]) => {
      if (!ATTR_NAME.test(key)) throw new Error(`bad attribute name ${key}`);
      return ` ${key}="${escapeAttr(value)}"`;
    })
    .join("");
  return innerHtml === null ? `<${name}${parts}>` : `<${name}${parts}>${innerHtml}</${name}>`;
}
