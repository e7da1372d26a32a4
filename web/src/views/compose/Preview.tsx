/**
 * The compose box's preview: in place of the text box, the text as the server renders it
 * (state/preview.ts), rendered again when the text changes under it (another conversation's
 * draft); "Exit preview" in the toolbar goes back to editing.
 */
import { useEffect } from "preact/hooks";
import * as compose from "../../state/compose.ts";
import { preview, previewError, renderPreview } from "../../state/preview.ts";
import { RenderedHtml } from "../RenderedHtml.tsx";
import "./Preview.css";

/** The preview (shown while previewing). */
export function Preview() {
  const text = compose.content.value;
  useEffect(() => void renderPreview(), [text]);
  const shown = preview.value;
  return (
    <div class="compose-preview">
      {previewError.value !== null ? (
        <p class="form-error" role="alert">
          {previewError.value}
        </p>
      ) : shown === null ? (
        <p class="compose-preview-note" role="status">
          Rendering the preview…
        </p>
      ) : shown.html === "" ? (
        <p class="compose-preview-note">Nothing to preview.</p>
      ) : (
        <RenderedHtml html={shown.html} label="Message preview" />
      )}
    </div>
  );
}
