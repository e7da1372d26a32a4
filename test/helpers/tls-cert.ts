/**
 * A throwaway TLS certificate for stand-in servers (bot.example, localhost, 127.0.0.1), made with
 * the openssl command for each suite: no key is kept in the repository. A server process trusts it
 * through NODE_EXTRA_CA_CERTS=certFile.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type TestCertificate = { key: string; cert: string; certFile: string };

/** Makes a self-signed certificate valid for a day. */
export function testCertificate(): TestCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-tls-"));
  const keyFile = path.join(dir, "key.pem");
  const certFile = path.join(dir, "cert.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=bot.example",
    "-addext", "subjectAltName=DNS:bot.example,DNS:localhost,IP:127.0.0.1", "-days", "1", "-keyout", keyFile, "-out", certFile,
  ], { stdio: "ignore" });
  return { key: fs.readFileSync(keyFile, "utf8"), cert: fs.readFileSync(certFile, "utf8"), certFile };
}
