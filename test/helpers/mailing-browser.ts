/**
 * A browser suite whose server sends through a test SMTP server (useBrowserSuite's SQLite server
 * and Chromium, with SMTP_URL set): the mail server starts before them and stops after them.
 */
import { after, before } from "node:test";
import { useBrowserSuite, type BrowserSuite } from "./browser-suite.ts";
import { smtpUrl, TestSmtp } from "./smtp.ts";

export type MailingBrowserSuite = BrowserSuite & { smtp: TestSmtp };

/** Registers the hooks in the current describe block and returns what they start. */
export function useMailingBrowser(): MailingBrowserSuite {
  const smtp = new TestSmtp();
  before(() => smtp.start());
  const suite = useBrowserSuite(() => ({ SMTP_URL: smtpUrl(smtp), EMAIL_RETRY_BASE_MS: "50" }));
  after(() => smtp.stop());
  return Object.assign(suite, { smtp });
}
