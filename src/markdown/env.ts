// Per-rendering state shared by all plugins (markdown-it's `env`), kept behind a type guard.
import type { LinkifierBudget } from "./linkifiers.ts";
import type { RenderContext } from "./types.ts";

/** Mutable state of one renderMessage call. */
// A type alias (not an interface) so it fits markdown-it's index-signature Env type.
export type RenderEnv = {
  ctx: RenderContext;
  /** Rendered HTML blocks (code, math, spoilers) referenced by placeholder lines. */
  stash: string[];
  /** Current depth of nested quotes/lists (bounded, so hostile input can't exhaust the stack). */
  depth: number;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  forbiddenGroups: Map<number, string>;
  wildcard: { channel: boolean; topic: boolean };
  hasLink: boolean;
  hasImage: boolean;
  uploads: Set<string>;
  previewedUrls: Set<string>;
  /** Work left to linkifiers in this rendering (markdown/linkifiers.ts). */
  linkifierBudget: LinkifierBudget;
  /** TeX left to typeset in this rendering (markdown/tex.ts), in source characters. */
  texBudget: number;
  /** Code left to highlight in this rendering (markdown/code.ts), in characters. */
  highlightBudget: { chars: number };
  /** Renders already fence-processed Markdown into block HTML (for spoilers). */
  renderFragment: (markdown: string) => string;
};

const ENVS = new WeakSet<object>();

/** Registers a freshly built env so envOf accepts it. */
export function registerEnv(env: RenderEnv): RenderEnv {
  ENVS.add(env);
  return env;
}

function isRenderEnv(value: unknown): value is RenderEnv {
  return typeof value === "object" && value !== null && ENVS.has(value);
}

/** The RenderEnv behind markdown-it's untyped env. */
export function envOf(env: unknown): RenderEnv {
  if (!isRenderEnv(env)) throw new Error("markdown rendered without a RenderEnv");
  return env;
}

/** Placeholder line for a stashed block; private-use characters are stripped from input. */
export function stashBlock(env: RenderEnv, html: string): string {
  env.stash.push(html);
  return `\uE000${env.stash.length - 1}\uE001`;
}

/** Matches a whole placeholder line. */
export const STASH_LINE = /^\uE000(\d+)\uE001$/;
