/** POST /submessages: widget data attached to a message, with `submessage` events to its holders. */
import { JsonableError } from "../../errors.ts";
import { submessageEvent } from "../../events/kinds/submessages.ts";
import { messageHolderIds } from "../../store/messages/flag-writes.ts";
import { firstWidgetContent, hasSubmessageFrom, insertSubmessage } from "../../store/messages/submessages.ts";
import { accessMessage } from "../../permissions/message-access.ts";
import { withTransaction, type AuthedCtx } from "../context.ts";

type Kind = "string" | "int" | "bool";

const KIND_CHECKS: Record<Kind, [(v: unknown) => boolean, string]> = {
  string: [(v) => typeof v === "string", "is not a string"],
  int: [(v) => Number.isInteger(v), "is not an integer"],
  bool: [(v) => typeof v === "boolean", "is not a boolean"],
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Zulip's check_dict_only: exactly these keys, each of its kind, worded as Zulip's validators. */
function checkDictOnly(varName: string, value: Record<string, unknown>, keys: ReadonlyArray<[string, Kind]>): void {
  for (const [key, kind] of keys) {
    if (!(key in value)) throw new JsonableError(`${key} key is missing from ${varName}`);
    const [ok, words] = KIND_CHECKS[kind];
    if (!ok(value[key])) throw new JsonableError(`${varName}["${key}"] ${words}`);
  }
  const extra = Object.keys(value).filter((k) => !keys.some(([key]) => key === k));
  if (extra.length > 0) throw new JsonableError(`Unexpected arguments: ${extra.join(", ")}`);
}

/** The shape of each widget's data, by `type`, and which types only the widget's author may send. */
const WIDGET_DATA: Record<string, { name: string; types: Record<string, ReadonlyArray<[string, Kind]>>; authorOnly: Record<string, string> }> = {
  poll: {
    name: "poll data",
    types: {
      vote: [["type", "string"], ["key", "string"], ["vote", "int"]],
      question: [["type", "string"], ["question", "string"]],
      new_option: [["type", "string"], ["option", "string"], ["idx", "int"]],
    },
    authorOnly: { question: "You can't edit a question unless you are the author." },
  },
  todo: {
    name: "todo data",
    types: {
      new_task: [["type", "string"], ["key", "int"], ["task", "string"], ["desc", "string"], ["completed", "bool"]],
      strike: [["type", "string"], ["key", "string"]],
      new_task_list_title: [["type", "string"], ["title", "string"]],
    },
    authorOnly: { new_task_list_title: "You can't edit the task list title unless you are the author." },
  },
};

/** The widget type named by the message's first `widget` submessage (Zulip's get_widget_type). */
function widgetType(content: string | undefined): string | undefined {
  if (content === undefined) return undefined;
  try {
    const data: unknown = JSON.parse(content);
    return isRecord(data) && typeof data.widget_type === "string" ? data.widget_type : undefined;
  } catch {
    return undefined;
  }
}

/** Zulip's validate_poll_data / validate_todo_data for data sent to a poll or to-do widget. */
function validateWidgetData(type: string | undefined, data: unknown, isAuthor: boolean): void {
  const spec = type === undefined ? undefined : WIDGET_DATA[type];
  if (!spec) return;
  if (!isRecord(data)) throw new JsonableError(`${spec.name} is not a dict`);
  if (!("type" in data)) throw new JsonableError(`type key is missing from ${spec.name}`);
  if (typeof data.type !== "string") throw new JsonableError(`${spec.name}["type"] is not a string`);
  const keys = spec.types[data.type];
  if (!keys) throw new JsonableError(`Unknown type for ${spec.name}: ${data.type}`);
  const authorOnly = spec.authorOnly[data.type];
  if (authorOnly && !isAuthor) throw new JsonableError(authorOnly);
  checkDictOnly(spec.name, data, keys);
}

/**
 * POST /submessages: the message's sender must attach the first submessage (Zulip's
 * verify_submessage_sender); content must be JSON and fit the widget's data rules.
 */
export async function addSubmessage(ctx: AuthedCtx, input: { message_id: number; msg_type: string; content: string }): Promise<Record<string, never>> {
  await withTransaction(ctx, async (tx, emit) => {
    const { message } = await accessMessage(ctx, tx, input.message_id, { forModify: true });
    if (message.sender_id !== ctx.actor.id && !(await hasSubmessageFrom(tx, message.id, message.sender_id))) {
      throw new JsonableError("You cannot attach a submessage to this message.");
    }
    let data: unknown;
    try {
      data = JSON.parse(input.content);
    } catch {
      throw new JsonableError("Invalid json for submessage");
    }
    validateWidgetData(widgetType(await firstWidgetContent(tx, message.id)), data, message.sender_id === ctx.actor.id);
    const row = await insertSubmessage(tx, { message_id: message.id, sender_id: ctx.actor.id, msg_type: input.msg_type, content: input.content });
    emit(submessageEvent(row), await messageHolderIds(tx, message));
  });
  return {};
}
