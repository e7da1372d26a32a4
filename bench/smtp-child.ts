/**
 * An SMTP server that accepts and counts mail, in a process of its own, for the email scenario:
 * receiving thousands of emails must not run on the event loop that times the sends. Started
 * with fork(); tells its parent the SMTP_URL to use, answers "stats" with how many mails it
 * accepted, and exits when the parent disconnects. No authentication and no TLS (loopback only).
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** What the sink has received so far. */
export type SmtpStats = { mails: number };

let mails = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData: (stream, _session, cb) => {
    stream.on("data", () => {});
    stream.on("end", () => {
      mails++;
      cb();
    });
  },
});
// A client that goes away mid-mail (the server under test stopping) is no failure of the sink.
server.on("error", () => {});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
const port = (server.server.address() as AddressInfo).port;
process.on("message", (msg) => {
  if (msg === "stats") process.send?.({ stats: { mails } satisfies SmtpStats });
});
process.on("disconnect", () => {
  server.close(() => process.exit(0));
});
process.send?.({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
