/**
 * Zulip's search syntax, as typed in the search box: `channel:general topic:"lunch plans"
 * sender:me has:link -is:starred words` becomes narrow terms (channel and user names resolved to
 * ids where the app knows them), and back into text for the search box and the title.
 */
import { canonicalOperator, simplify, type Narrow, type SearchTerm } from "./narrow.ts";
import { channels, me, streamName, users } from "./store.ts";

/** Operators the search box understands (canonical names); other `word:` tokens are search words. */
const OPERATORS: ReadonlySet<string> = new Set(["channel", "channels", "topic", "sender", "dm", "dm-including", "is", "has", "in", "near", "id", "search"]);

/** Words and quoted phrases: `topic:"two words"` stays one token. */
const TOKEN = /(?:[^\s"]*"[^"]*"?)+[^\s"]*|\S+/g;

function unquote(text: string): string {
  return text.replace(/"/g, "");
}

/** The id (as text) of a channel named `name`, or the name when the app does not know it. */
function resolveChannel(name: string): string {
  if (/^\d+$/.test(name)) return name;
  const lower = name.toLowerCase();
  for (const s of channels.value.values()) if (s.name.toLowerCase() === lower) return String(s.stream_id);
  return name;
}

/** The id (as text) of the user an email, name or `me` names, or the text itself. */
function resolveUser(text: string): string {
  if (/^\d+$/.test(text)) return text;
  const lower = text.toLowerCase();
  if (lower === "me") return String(me.value?.user_id ?? text);
  for (const u of users.value.values()) if (u.email.toLowerCase() === lower || u.full_name.toLowerCase() === lower) return String(u.user_id);
  return text;
}

function resolveUsers(text: string): string {
  const ids = text.split(",").map((p) => resolveUser(p.trim()));
  return ids.every((id) => /^\d+$/.test(id)) ? ids.map(Number).sort((a, b) => a - b).join(",") : text;
}

function resolve(operator: string, operand: string): string {
  if (operator === "channel") return resolveChannel(operand);
  if (operator === "sender" || operator === "dm-including") return resolveUser(operand);
  if (operator === "dm") return resolveUsers(operand);
  return operand;
}

/** The terms of a typed search: operators first, in order, then the free words as one `search` term. */
export function parseSearch(text: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  const words: string[] = [];
  for (const token of text.match(TOKEN) ?? []) {
    const m = /^(-?)([a-z-]+):(.+)$/i.exec(token);
    const operator = m ? canonicalOperator(m[2].toLowerCase()) : "";
    if (m && OPERATORS.has(operator)) {
      const operand = unquote(m[3]).trim();
      if (operand === "") continue;
      if (operator === "search") words.push(operand);
      else terms.push({ operator, operand: resolve(operator, operand), negated: m[1] === "-" });
    } else {
      words.push(unquote(token));
    }
  }
  const search = words.join(" ").trim();
  if (search !== "") terms.push({ operator: "search", operand: search, negated: false });
  return terms;
}

/** The narrow a typed search names: a plain channel, topic or conversation when it is one. */
export function narrowFromSearch(text: string): Narrow {
  return simplify(parseSearch(text));
}

function quoted(text: string): string {
  return /\s/.test(text) ? `"${text}"` : text;
}

function userText(id: string): string {
  const user = users.value.get(Number(id));
  return user ? user.email : id;
}

/** A term as the search box shows it. */
function termText(t: SearchTerm): string {
  if (t.operator === "search") return t.operand;
  let operand = t.operand;
  if (t.operator === "channel" && /^\d+$/.test(operand)) operand = streamName(Number(operand));
  else if ((t.operator === "sender" || t.operator === "dm-including") && /^\d+$/.test(operand)) operand = userText(operand);
  else if (t.operator === "dm" && /^\d+(,\d+)*$/.test(operand)) operand = operand.split(",").map(userText).join(",");
  return `${t.negated ? "-" : ""}${t.operator}:${quoted(operand)}`;
}

/** The search text of a narrow (what the search box shows while it is open). */
export function searchText(n: Narrow): string {
  switch (n.kind) {
    case "feed":
      return "";
    case "channel":
      return termText({ operator: "channel", operand: String(n.streamId), negated: false });
    case "topic":
      return `${termText({ operator: "channel", operand: String(n.streamId), negated: false })} ${termText({ operator: "topic", operand: n.topic, negated: false })}`;
    case "dm":
      return termText({ operator: "dm", operand: n.userIds.join(","), negated: false });
    case "mentions":
      return "is:mentioned";
    case "starred":
      return "is:starred";
    case "search":
      return n.terms.map(termText).join(" ");
  }
}
