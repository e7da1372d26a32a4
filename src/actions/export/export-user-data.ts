/**
 * What refers to the exported messages, and each user's own data: reactions and widget
 * submessages (read again a chunk of exported messages at a time, so memory does not follow the
 * history), scheduled messages and reminders, topic settings, alert words, muted users and saved
 * snippets: the last five are private data, in an export only for the users whose data goes in.
 */
import { reactionsOf, submessagesOf } from "../../store/export/message-chunks.ts";
import { realmRows } from "../../store/export/organization-rows.ts";
import type { RowSource } from "../../formats/zulip/json-writer.ts";
import type { ExportEnv } from "./export-env.ts";
import type { ExportScope } from "./export-scope.ts";
import { exportedChunks } from "./export-messages.ts";

async function* reactionRows(env: ExportEnv, scope: ExportScope): AsyncGenerator<object> {
  for await (const chunk of exportedChunks(env, scope)) {
    for (const r of await reactionsOf(env.db, chunk.map(({ m }) => m.id))) {
      yield { id: r.id, message: r.message_id, user_profile: r.user_id, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type };
    }
  }
}

async function* submessageRows(env: ExportEnv, scope: ExportScope): AsyncGenerator<object> {
  for await (const chunk of exportedChunks(env, scope)) {
    for (const s of await submessagesOf(env.db, chunk.map(({ m }) => m.id))) yield { id: s.id, message: s.message_id, sender: s.sender_id, msg_type: s.msg_type, content: s.content };
  }
}

/** The tables that follow the messages and the users' own data, for realm.json. */
export async function userDataTables(env: ExportEnv, scope: ExportScope, clients: ReadonlyMap<string, number>): Promise<Record<string, RowSource>> {
  const { db, realmId } = env;
  const own = <T extends { user_id: number }>(rows: T[]) => rows.filter((r) => scope.isPrivateOf(r.user_id));
  const scheduled = (await realmRows(db, "scheduled_messages", realmId)).filter((s) => scope.isPrivateOf(s.sender_id) && (s.stream_id === null || scope.streamIds.has(s.stream_id)));
  return {
    zerver_reaction: reactionRows(env, scope),
    zerver_submessage: submessageRows(env, scope),
    zerver_scheduledmessage: scheduled.map((s) => ({
      id: s.id,
      realm: realmId,
      sender: s.sender_id,
      recipient: s.stream_id === null ? scope.directRecipient(s.recipient_id, s.sender_id).recipient : s.recipient_id,
      stream: s.stream_id,
      subject: s.topic,
      content: s.content,
      rendered_content: s.rendered_content,
      sending_client: clients.get(s.sending_client) ?? null,
      scheduled_timestamp: s.scheduled_timestamp,
      read_by_sender: s.read_by_sender === 1,
      has_attachment: s.has_attachment === 1,
      delivered: s.delivered === 1,
      delivered_message: s.delivered_message_id,
      failed: s.failed === 1,
      failure_message: s.failure_message,
      delivery_type: s.delivery_type,
      reminder_target_message: s.reminder_target_message_id,
      reminder_note: s.reminder_note,
    })),
    zerver_usertopic: own(await realmRows(db, "user_topics", realmId))
      .filter((t) => scope.streamIds.has(t.stream_id))
      .map((t) => ({ id: t.id, user_profile: t.user_id, stream: t.stream_id, topic_name: t.topic, visibility_policy: t.visibility_policy, last_updated: t.last_updated })),
    zerver_alertword: own(await realmRows(db, "alert_words", realmId)).map((w) => ({ id: w.id, realm: realmId, user_profile: w.user_id, word: w.word })),
    zerver_muteduser: own(await realmRows(db, "muted_users", realmId)).map((m) => ({ id: m.id, user_profile: m.user_id, muted_user: m.muted_user_id, date_muted: m.date_muted })),
    zerver_savedsnippet: own(await realmRows(db, "saved_snippets", realmId)).map((s) => ({ id: s.id, realm: realmId, user_profile: s.user_id, title: s.title, content: s.content, date_created: s.date_created })),
  };
}
