/**
 * Suites about email: a real SMTP server started before the suite's server (which sends through
 * it) and stopped after (a mail's parts: mail-parts.ts).
 */
import { after, before } from "node:test";
import { smtpUrl, TestSmtp } from "./smtp.ts";
import { useServer, type SuiteServer } from "./suite.ts";
import type { StoreKind } from "./stores.ts";

/** A suite's SMTP server, its Parley server sending through it, and that server's environment (for a restart). */
export type MailSuite = { smtp: TestSmtp; server: SuiteServer; env: () => Record<string, string> };

/**
 * Registers, in the current describe block, an SMTP server and a Parley server on a fresh store
 * of `kind` that sends through it (failed sends retried after 50 ms); `env` adds variables.
 */
export function useMailServer(kind: StoreKind, env: Record<string, string> = {}): MailSuite {
  const smtp = new TestSmtp();
  before(async () => {
    await smtp.start();
  });
  const serverEnv = () => ({ SMTP_URL: smtpUrl(smtp), EMAIL_RETRY_BASE_MS: "50", ...env });
  const server = useServer(kind, serverEnv);
  after(async () => {
    await smtp.stop();
  });
  return { smtp, server, env: serverEnv };
}
