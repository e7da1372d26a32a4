/**
 * File uploads from the compose box (picked, pasted or dropped), as Zulip's clients do them: a
 * placeholder `[Uploading name…]()` goes in at the caret, the file is sent to
 * POST /json/user_uploads, and the placeholder becomes `[name](url)` (the server renders an
 * image link as an inline preview). Progress and failures are shown by the compose box.
 */
import { signal } from "@preact/signals";
import { ApiError, upload } from "../api/client.ts";
import * as compose from "./compose.ts";
import { maxUploadBytes } from "./message-rules.ts";

/** One upload in progress: its file name and the fraction sent. */
export type UploadProgress = { id: number; name: string; fraction: number };

/** The uploads still being sent, in the order they started. */
export const uploadsInProgress = signal<readonly UploadProgress[]>([]);
/** The last upload's failure (null: none since the last send or upload). */
export const uploadError = signal<string | null>(null);

let nextId = 1;

/** Markdown link text cannot hold unbalanced brackets: drop them from the name. */
function linkText(name: string): string {
  return name.replace(/[[\]]/g, "");
}

function setProgress(id: number, fraction: number | null, name = ""): void {
  const others = uploadsInProgress.value.filter((u) => u.id !== id);
  uploadsInProgress.value = fraction === null ? others : [...others, { id, name, fraction }].sort((a, b) => a.id - b.id);
}

/** Replaces the first occurrence of a placeholder in the compose text (it may have moved). */
function replacePlaceholder(placeholder: string, text: string): void {
  const at = compose.content.value.indexOf(placeholder);
  if (at >= 0) compose.replaceRange(at, at + placeholder.length, text, true);
  else if (text !== "") compose.insertText(text);
}

async function uploadOne(file: File): Promise<void> {
  const id = nextId++;
  const name = file.name || "pasted-file";
  const limit = maxUploadBytes();
  if (limit !== null && file.size > limit) {
    uploadError.value = `${name} is larger than the ${Math.round(limit / (1024 * 1024))} MiB the server accepts.`;
    return;
  }
  const placeholder = `[Uploading ${linkText(name)}…]()`;
  compose.insertText(`${placeholder} `);
  setProgress(id, 0, name);
  try {
    const res = await upload(file, (fraction) => setProgress(id, fraction, name));
    replacePlaceholder(placeholder, `[${linkText(res.filename ?? name)}](${res.url})`);
  } catch (err) {
    replacePlaceholder(placeholder, "");
    uploadError.value = `Could not upload ${name}: ${err instanceof ApiError ? err.message : "unknown error"}`;
  } finally {
    setProgress(id, null);
  }
}

/** Uploads files one after the other, each inserted where the caret is when it starts. */
export async function uploadFiles(files: Iterable<File>): Promise<void> {
  uploadError.value = null;
  for (const file of files) await uploadOne(file);
}
