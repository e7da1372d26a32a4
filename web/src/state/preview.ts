/**
 * The compose box's preview: the text as the server would render it (POST /messages/render),
 * shown in place of the text box until the user goes back to editing.
 */
import { batch, signal } from "@preact/signals";
import { composeApi } from "../api/compose.ts";
import * as compose from "./compose.ts";
import { errorText } from "./errors.ts";

/** Whether the box shows the preview. */
export const previewing = signal(false);
/** The rendered text and the text it is of (null while it renders). */
export const preview = signal<{ content: string; html: string } | null>(null);
export const previewError = signal<string | null>(null);

/** Renders the box's text, unless that text's rendering is shown already. */
export async function renderPreview(): Promise<void> {
  const content = compose.content.value;
  if (preview.value?.content === content && previewError.value === null) return;
  batch(() => {
    preview.value = null;
    previewError.value = null;
  });
  if (content.trim() === "") return void (preview.value = { content, html: "" });
  try {
    const res = await composeApi.render(content);
    // The text may have changed meanwhile (another conversation opened): that one is shown next.
    if (compose.content.value === content) preview.value = { content, html: res.rendered };
  } catch (err) {
    previewError.value = errorText(err, "Could not render the preview.");
  }
}

/** Shows the preview (or goes back to editing). */
export function setPreviewing(on: boolean): void {
  previewing.value = on;
  if (on) void renderPreview();
}
