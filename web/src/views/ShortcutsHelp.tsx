/** The keyboard shortcuts' help (the `?` key, as upstream's): every shortcut keyboard.ts handles. */
import { shortcutsOpen } from "../state/layout.ts";
import { Modal } from "./forms/Modal.tsx";
import "./ShortcutsHelp.css";

/** Each shortcut: its keys (alternatives) and what it does. */
const SHORTCUTS: ReadonlyArray<{ keys: string[]; does: string }> = [
  { keys: ["?"], does: "Show keyboard shortcuts" },
  { keys: ["/"], does: "Search" },
  { keys: ["c"], does: "New message in this conversation" },
  { keys: ["x"], does: "New direct message" },
  { keys: ["r", "Enter"], does: "Reply to the selected message" },
  { keys: ["n"], does: "Next unread topic" },
  { keys: ["j", "↓"], does: "Select the next message" },
  { keys: ["k", "↑"], does: "Select the previous message" },
  { keys: ["End"], does: "Select the last message" },
  { keys: ["e"], does: "Edit the selected message (or your last one)" },
  { keys: ["*"], does: "Star or unstar the selected message" },
  { keys: [":"], does: "React to the selected message with an emoji" },
  { keys: ["m"], does: "Mute or unmute the selected message's topic" },
  { keys: ["Shift", "U"], does: "Mark as unread from the selected message" },
  { keys: ["Esc"], does: "Close, clear the selection, or go back to the combined feed" },
];

function Keys({ keys }: { keys: string[] }) {
  // "Shift + U" is one chord; other lists are alternatives.
  const chord = keys[0] === "Shift";
  return (
    <>
      {keys.map((k, i) => (
        <span key={k}>
          {i > 0 && <span class="shortcut-sep">{chord ? " + " : " or "}</span>}
          <kbd>{k}</kbd>
        </span>
      ))}
    </>
  );
}

/** The dialog (nothing while closed). */
export function ShortcutsHelp() {
  if (!shortcutsOpen.value) return null;
  return (
    <Modal titleId="shortcuts-title" title="Keyboard shortcuts" class="shortcuts-dialog" onClose={() => (shortcutsOpen.value = false)}>
      <table class="shortcuts-table">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.does}>
              <td>
                <Keys keys={s.keys} />
              </td>
              <td>{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  );
}
