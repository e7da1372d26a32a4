/**
 * A real SMTP server for tests (smtp-server, behind a TCP front that counts connections and can
 * drop them), with the mail it accepted; and the waits and link readers the email tests share.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { SMTPServer } from "smtp-server";
import type { TestServer } from "./server.ts";

export const SMTP_USER = "mailer";
export const SMTP_PASSWORD = "s3cret-Smtp!pw";
const WAIT_MS = 15_000;

/** One email as the SMTP server received it. */
export type Mail = { from: string; to: string[]; subject: string; body: string };

/** How the SMTP side answers now. */
export type Mode = "accept" | "refuse" | "drop" | "bad-login";

/** Undoes quoted-printable soft breaks and escapes (nodemailer's encoding of long lines). */
function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** An SMTP server on a random port, with the mail it accepted and the connections it saw. */
export class TestSmtp {
  mode: Mode = "accept";
  readonly mails: Mail[] = [];
  connections = 0;
  port = 0;
  private innerPort = 0;
  private readonly smtp: SMTPServer;
  private readonly front: net.Server;

  constructor() {
    this.smtp = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onAuth: (auth, _session, cb) => {
        if (this.mode !== "bad-login" && auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) cb(null, { user: SMTP_USER });
        else cb(new Error("Invalid username or password"));
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          if (this.mode === "refuse") {
            cb(Object.assign(new Error("Mailbox temporarily unavailable"), { responseCode: 451 }));
            return;
          }
          const raw = Buffer.concat(chunks).toString("utf8");
          const [head, ...rest] = raw.split(/\r?\n\r?\n/);
          const subject = /^Subject: (.*)$/m.exec(head)?.[1] ?? "";
          const from = session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address;
          this.mails.push({ from, to: session.envelope.rcptTo.map((r) => r.address), subject, body: decodeQuotedPrintable(rest.join("\n\n")) });
          cb();
        });
      },
    });
    // The front counts connections and, in "drop" mode, closes them at once.
    this.front = net.createServer((socket) => {
      this.connections++;
      if (this.mode === "drop") {
        socket.destroy();
        return;
      }
      const inner = net.connect(this.innerPort, "127.0.0.1");
      socket.pipe(inner).pipe(socket);
      socket.on("error", () => inner.destroy());
      inner.on("error", () => socket.destroy());
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.smtp.listen(0, "127.0.0.1", () => resolve()));
    this.innerPort = (this.smtp.server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => this.front.listen(0, "127.0.0.1", () => resolve()));
    this.port = (this.front.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.front.close(() => resolve()));
    await new Promise<void>((resolve) => this.smtp.close(() => resolve()));
  }
}

/** Polls `check` until it is truthy, or fails after WAIT_MS. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The token of the invitation link in a mail's body. */
export function linkToken(server: TestServer, mail: Mail): string {
  const match = new RegExp(`${server.url.replace(/[.]/g, "\\.")}/join/([A-Za-z0-9]+)/`).exec(mail.body);
  assert.ok(match, `the body holds an invitation link:\n${mail.body}`);
  return match[1];
}

/** SMTP_URL for a server that sends through `smtp` with the test credentials. */
export function smtpUrl(smtp: TestSmtp): string {
  return `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${smtp.port}`;
}
