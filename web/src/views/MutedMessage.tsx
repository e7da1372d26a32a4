/** A muted sender's message, collapsed as upstream shows it, with a button that reveals it. */
import "./MutedMessage.css";

/** The notice in place of the message's content. */
export function MutedMessage({ onReveal }: { onReveal: () => void }) {
  return (
    <p class="muted-message">
      This message was hidden because you muted the sender.
      <button
        type="button"
        class="button-link"
        onClick={(e) => {
          e.stopPropagation();
          onReveal();
        }}
      >
        Reveal message
      </button>
    </p>
  );
}
