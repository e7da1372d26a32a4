/**
 * Event queues across a graceful restart, as upstream's Tornado does (dump_event_queues and
 * load_event_queues): at shutdown every queue of this process is written to one file in
 * EVENT_QUEUES_DIR (DATA_DIR by default), named for the process, and the next start on the same
 * port reads it back and deletes it. A crash leaves no file, so its queues are gone and clients
 * re-register (BAD_EVENT_QUEUE_ID); a file is never read twice, so a later crash cannot bring
 * back queues that have since missed events. With the Redis bus, other processes may publish
 * while this one is stopped: the file records where this process stood on the bus
 * (ServerBus.position), the next start reads on from there (events/redis-bus.ts), and only when
 * the bus can no longer reach back that far are the saved queues dropped.
 */
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { z } from "zod";
import type { QueueManager } from "./queue-manager.ts";
import type { EventQueue, QueueSnapshot } from "./queue.ts";
import type { QueueOptions } from "./queue-options.ts";
import { isApiEvent, type QueuedEvent } from "./types.ts";

/** Bumped when the saved shape changes; a file of another format is dropped (queues re-register). */
const FORMAT = 1;

/** Owner read and write only: the file holds message content. */
const FILE_MODE = 0o600;

/** A capability a newer release added is false for a queue saved by an older one, as at registration. */
const capability = z.boolean().default(false);

const optionsSchema: z.ZodType<QueueOptions, unknown> = z.object({
  apply_markdown: z.boolean(),
  client_gravatar: z.boolean(),
  include_subscribers: z.enum(["true", "false", "partial"]),
  slim_presence: z.boolean(),
  presence_history_limit_days: z.number().int().nullable(),
  all_public_streams: z.boolean(),
  narrow: z.array(z.tuple([z.string(), z.string()])),
  capabilities: z.object({
    notification_settings_null: capability,
    bulk_message_deletion: capability,
    user_avatar_url_field_optional: capability,
    stream_typing_notifications: capability,
    user_settings_object: capability,
    linkifier_url_template: capability,
    user_list_incomplete: capability,
    include_deactivated_groups: capability,
    archived_channels: capability,
    empty_topic_name: capability,
    simplified_presence_events: capability,
  }),
  event_types: z.array(z.string()).nullable(),
  fetch_event_types: z.array(z.string()).nullable(),
});

/** Events were built by this code before the restart: only the type and the queue's id are checked. */
const queuedEvent = z.custom<QueuedEvent>((value) => isApiEvent(value) && "id" in value && Number.isInteger(value.id));

const snapshotSchema: z.ZodType<QueueSnapshot, unknown> = z.object({
  id: z.string(),
  realmId: z.number().int(),
  userId: z.number().int(),
  options: optionsSchema,
  lifespanMs: z.number(),
  lastTouchedMs: z.number(),
  lastServedMs: z.number(),
  nextId: z.number().int(),
  newestPrunedId: z.number().int(),
  events: z.array(queuedEvent),
});

const fileSchema = z.object({
  format: z.literal(FORMAT),
  savedAtMs: z.number(),
  busPosition: z.string().nullable(),
  queues: z.array(snapshotSchema),
});

/** When the queues are saved: the clock's time and the bus position (see ServerBus.position). */
type SaveMark = { nowMs: number; busPosition: string | null };

/** The file this process saves its queues to: one per process id (the port), as upstream's event_queues.<port>.json. */
export function queuesFile(dir: string, processId: string): string {
  return path.join(dir, `event-queues.${processId}.json`);
}

/** Writes `text` to `file` atomically: a temporary file, flushed, then renamed over it. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    const fd = fs.openSync(tmp, "w", FILE_MODE);
    try {
      // A stale temporary file keeps its old mode through "w": set it.
      fs.fchmodSync(fd, FILE_MODE);
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Writes every queue to `file`, readable by the owner only. Call once nothing can reach the
 * queues any more: after the HTTP server and the bus are closed. A failure is logged, not
 * thrown: the stop goes on, and clients register again as after a crash.
 */
export function saveQueues(queues: QueueManager, file: string, mark: SaveMark, log: Logger): void {
  const saved = queues.snapshots();
  try {
    writeAtomically(file, JSON.stringify({ format: FORMAT, savedAtMs: mark.nowMs, busPosition: mark.busPosition, queues: saved }));
    log.info({ queues: saved.length, file }, "saved event queues");
  } catch (err) {
    log.error({ err, file }, "could not save the event queues: clients will register again");
  }
}

/** Reads and deletes the saved file; null when there is none, or it cannot be used (then logged). */
function takeFile(file: string, log: Logger): z.infer<typeof fileSchema> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
    // Deleted before use: whatever happens next, a crash must not bring these queues back.
    fs.rmSync(file, { force: true });
  } catch (err) {
    if (err instanceof Error && "code" in err && err.code === "ENOENT") return null;
    log.error({ err, file }, "could not read the saved event queues: clients will register again");
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    log.error({ file }, "could not read the saved event queues: clients will register again");
    return null;
  }
  const result = fileSchema.safeParse(parsed);
  if (!result.success) {
    log.error({ file, issue: result.error.issues[0]?.message }, "saved event queues are of another format: clients will register again");
    return null;
  }
  return result.data;
}

/** Queues a start took back from the saved file, and where the bus stood when they were saved. */
export type LoadedQueues = { busPosition: string | null; queues: EventQueue[]; file: string };

/**
 * Loads the queues a graceful shutdown saved to `file` into `queues`, then deletes the file;
 * queues idle past their lifespan by now are dropped. Call before the bus starts: it then
 * delivers what was published since `busPosition` to them, or, when it cannot, keepLoadedQueues
 * drops them.
 */
export function loadQueues(queues: QueueManager, file: string, log: Logger): LoadedQueues | null {
  const saved = takeFile(file, log);
  if (!saved) return null;
  const restored = queues.restore(saved.queues);
  log.info({ queues: restored.length, expired: saved.queues.length - restored.length, file }, "restored event queues");
  return { busPosition: saved.busPosition, queues: restored, file };
}

/** Drops the loaded queues unless the bus resumed from where they were saved (they would miss events). */
export function keepLoadedQueues(queues: QueueManager, loaded: LoadedQueues, resumed: boolean, log: Logger): void {
  if (resumed) return;
  for (const queue of loaded.queues) queues.delete(queue);
  log.warn({ queues: loaded.queues.length, file: loaded.file }, "the event bus no longer holds every event published while this process was stopped: its saved event queues are dropped, clients will register again");
}
