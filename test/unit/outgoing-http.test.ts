/**
 * src/outgoing-http.ts's address check (which destinations an outgoing webhook may connect to)
 * and config.ts's reading of OUTGOING_HTTP_ALLOW and OUTGOING_HTTP_PROXY. The requests themselves
 * are tested over real sockets in test/api/outgoing-webhook-guard.test.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadConfig } from "../../src/config.ts";
import { mayConnect } from "../../src/outgoing-http.ts";

const allowOf = (raw: string) => loadConfig({ OUTGOING_HTTP_ALLOW: raw }).outgoingHttpAllow;

describe("mayConnect", () => {
  test("public unicast addresses pass", () => {
    for (const address of ["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8"]) {
      assert.equal(mayConnect([], address, 443, null), true, address);
    }
  });

  test("loopback, private, link-local (metadata), shared, multicast, reserved and special IPv6 ranges are refused", () => {
    const refused = [
      "127.0.0.1", "127.1.2.3", "0.0.0.0", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "169.254.169.254",
      "100.64.0.1", "100.100.100.200", "224.0.0.1", "255.255.255.255", "192.0.0.192", "198.18.0.1", "240.0.0.1",
      "::1", "::", "fe80::1", "fd00:ec2::254", "fc00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1",
      "64:ff9b::7f00:1", "2002:7f00:1::1", "2001::1", "2001:db8::1", "fec0::1",
    ];
    for (const address of refused) assert.equal(mayConnect([], address, 80, null), false, address);
  });

  test("what is not an address is refused", () => {
    assert.equal(mayConnect([], "localhost", 80, "localhost"), false);
    assert.equal(mayConnect([], "", 80, null), false);
  });

  test("OUTGOING_HTTP_ALLOW: addresses, ranges and names, on any port or one", () => {
    const allow = allowOf("127.0.0.1:5002, 10.0.0.0/8, [fd00::/8]:443, bots.internal, Hook.Example.:8080, ::1");
    assert.equal(mayConnect(allow, "127.0.0.1", 5002, null), true);
    assert.equal(mayConnect(allow, "127.0.0.1", 5003, null), false, "another port of an address allowed on one port");
    assert.equal(mayConnect(allow, "::ffff:127.0.0.1", 5002, "localhost"), true, "IPv4-mapped: the IPv4 rule");
    assert.equal(mayConnect(allow, "10.200.0.9", 1, null), true);
    assert.equal(mayConnect(allow, "11.0.0.1", 1, null), true, "public anyway");
    assert.equal(mayConnect(allow, "192.168.0.1", 1, null), false);
    assert.equal(mayConnect(allow, "fd12::1", 443, null), true);
    assert.equal(mayConnect(allow, "fd12::1", 80, null), false);
    assert.equal(mayConnect(allow, "::1", 9, null), true);
    assert.equal(mayConnect(allow, "192.168.7.7", 80, "bots.internal"), true, "a name allows whatever it resolves to");
    assert.equal(mayConnect(allow, "192.168.7.7", 80, null), false, "but not the address itself");
    assert.equal(mayConnect(allow, "192.168.7.7", 8080, "hook.example"), true);
    assert.equal(mayConnect(allow, "192.168.7.7", 80, "hook.example"), false);
    assert.equal(mayConnect(allow, "192.168.7.7", 80, "other.internal"), false);
  });
});

describe("outgoing HTTP settings", () => {
  test("OUTGOING_HTTP_ALLOW entries are read, normalized", () => {
    assert.deepEqual(allowOf("127.0.0.1:5002,10.0.0.0/8,[::1]:80,fd00::/8,::ffff:10.1.2.3,Bots.Internal.:99"), [
      { cidr: "127.0.0.1/32", name: null, port: 5002 },
      { cidr: "10.0.0.0/8", name: null, port: null },
      { cidr: "::1/128", name: null, port: 80 },
      { cidr: "fd00::/8", name: null, port: null },
      { cidr: "10.1.2.3/32", name: null, port: null },
      { cidr: null, name: "bots.internal", port: 99 },
    ]);
    assert.deepEqual(allowOf(""), []);
  });

  test("a malformed OUTGOING_HTTP_ALLOW entry stops the start, naming it", () => {
    for (const entry of ["10.0.0.0/33", "::1/129", "1.2.3.4:0", "1.2.3.4:70000", "host:port", "[bots.internal]:80", "bad_name", "10.1", "a/8", "fe80::1%eth0", "1.2.3.4/8/8"]) {
      assert.throws(() => allowOf(entry), { message: `OUTGOING_HTTP_ALLOW must list addresses, CIDR ranges or host names, each optionally with :PORT, got ${JSON.stringify(entry)}` }, entry);
    }
  });

  test("OUTGOING_HTTP_PROXY is an http:// URL of the proxy, and the error does not echo it", () => {
    assert.equal(loadConfig({}).outgoingHttpProxy, null);
    assert.equal(loadConfig({ OUTGOING_HTTP_PROXY: "http://127.0.0.1:4750" }).outgoingHttpProxy, "http://127.0.0.1:4750/");
    assert.equal(loadConfig({ OUTGOING_HTTP_PROXY: "http://parley:s3cret@[::1]:4750/" }).outgoingHttpProxy, "http://parley:s3cret@[::1]:4750/");
    for (const raw of ["https://proxy:4750", "http://user:secret@proxy:4750/path", "proxy:4750", "socks5://proxy:1080"]) {
      assert.throws(() => loadConfig({ OUTGOING_HTTP_PROXY: raw }), { message: "OUTGOING_HTTP_PROXY must be an http://HOST:PORT URL" }, raw);
    }
  });
});
