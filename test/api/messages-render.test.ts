/** POST /messages/render: the HTML content would get, rendered for the caller; nothing is stored. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { expectError, expectSuccess } from "../helpers/client.ts";
import { countRows } from "../helpers/db.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH } from "../helpers/errors.ts";

describeEachStore("POST /messages/render", (server) => {
  before(async () => {
    const { owner } = server.fixtures;
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
    expectSuccess(await server.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
  });

  test("renders Markdown with mentions and channel links the caller may use", async () => {
    const { owner, member } = server.fixtures;
    const before = await countRows(server, ["messages", "user_message_flags"]);
    const body = expectSuccess(await server.api.post(member, "/messages/render", { content: "**hi** @**Olivia Owner** #**general** #**secret**" }));
    const generalId = expectSuccess(await server.api.get(owner, "/get_stream_id", { stream: "general" })).stream_id;
    assert.equal(
      body.rendered,
      `<p><strong>hi</strong> <span class="user-mention" data-user-id="${owner.id}">@Olivia Owner</span> ` +
        `<a class="stream" data-stream-id="${generalId}" href="/#narrow/channel/${generalId}-general">#general</a> #<strong>secret</strong></p>`,
    );
    assert.deepEqual(await countRows(server, ["messages", "user_message_flags"]), before);
  });

  test("raw HTML is escaped", async () => {
    const body = expectSuccess(await server.api.post(server.fixtures.member, "/messages/render", { content: "<script>alert(1)</script>" }));
    assert.equal(body.rendered, "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
  });

  test("TeX is typeset by KaTeX, inline and as a math block; what it cannot typeset is upstream's error markup", async () => {
    const { member } = server.fixtures;
    const inline = expectSuccess(await server.api.post(member, "/messages/render", { content: "$$x^2$$" })).rendered as string;
    assert.match(inline, /^<p><span class="katex"><span class="katex-mathml"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML">/);
    assert.match(inline, /<annotation encoding="application\/x-tex">x\^2<\/annotation>/);
    const block = expectSuccess(await server.api.post(member, "/messages/render", { content: "```math\n\\frac{a}{b}\n```" })).rendered as string;
    assert.match(block, /^<p><span class="katex-display"><span class="katex">/);
    assert.equal(expectSuccess(await server.api.post(member, "/messages/render", { content: "$$\\frac{1}$$" })).rendered, '<p><span class="tex-error">$$\\frac{1}$$</span></p>');
  });

  test("fenced code is highlighted with Pygments' token classes, as upstream's server writes it", async () => {
    const body = expectSuccess(await server.api.post(server.fixtures.member, "/messages/render", { content: "```py\ndef f(self): return '<b>&'\n```" }));
    assert.equal(
      body.rendered,
      '<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="k">def</span> <span class="nf">f</span><span class="p">(</span><span class="bp">self</span><span class="p">):</span> <span class="k">return</span> <span class="s1">\'&lt;b&gt;&amp;\'</span>\n</code></pre></div>',
    );
  });

  test("no credentials; missing content", async () => {
    expectError(await server.api.post(null, "/messages/render", { content: "x" }), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.post(server.fixtures.member, "/messages/render", {}), "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
  });
});
