/**
 * Presence reports written behind (PRESENCE_WRITE_DELAY_MS): the steady ping that announces
 * nothing waits and is written with the others of its window, each under its own sequence
 * number; a report that announces is written at once; invisible mode is never overwritten by a
 * report that was waiting; what waits is written when the server stops.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectSuccess, type Credentials } from "../helpers/client.ts";
import { withDb } from "../helpers/db.ts";
import { startServerOnStore, type TestServer } from "../helpers/server.ts";
import { createUser } from "../helpers/factories.ts";
import { describeEachStore } from "../helpers/suite.ts";

/** Long enough that a check made right after a ping runs before the batch. */
const DELAY_MS = 2000;

type Row = { user_id: number; last_active_time: number | null; last_connected_time: number; last_update_id: number };

describeEachStore("presence written behind", { env: { PRESENCE_WRITE_DELAY_MS: String(DELAY_MS) } }, (server) => {
  const rowOf = (s: TestServer, userId: number) =>
    withDb(s, (db) => db.selectFrom("user_presence").select(["user_id", "last_active_time", "last_connected_time", "last_update_id"]).where("user_id", "=", userId).executeTakeFirst()) as Promise<Row | undefined>;
  const advance = async (s: TestServer, seconds: number) => Math.floor(expectSuccess(await s.api.post(null, "/__test/advance_clock", { seconds }, { validate: false })).now_ms / 1000);
  const ping = async (s: TestServer, user: Credentials) => expectSuccess(await s.api.post(user, "/users/me/presence", { status: "active", ping_only: true }));
  /** Waits for the batch: the row's connection time reaches `time` (the batch's own timer, DELAY_MS). */
  async function writtenAt(userId: number, time: number): Promise<Row> {
    for (;;) {
      const row = await rowOf(server, userId);
      if (row && row.last_connected_time >= time) return row;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test("a first report is written at once; the steady pings wait and are written together, each numbered", async () => {
    const users = [await createUser(server), await createUser(server), await createUser(server)];
    const t0 = await advance(server, 0);
    for (const u of users) await ping(server, u);
    const first = await Promise.all(users.map((u) => rowOf(server, u.id)));
    assert.deepEqual(first.map((r) => r?.last_connected_time), [t0, t0, t0], "coming online is written (and announced) at once");

    const t1 = await advance(server, 60);
    for (const u of users) await ping(server, u);
    const waiting = await Promise.all(users.map((u) => rowOf(server, u.id)));
    assert.deepEqual(waiting.map((r) => r?.last_connected_time), [t0, t0, t0], "the steady ping waits");
    // A poll meanwhile answers, from the stored rows.
    const mark = Math.max(...first.map((r) => r!.last_update_id));
    expectSuccess(await server.api.post(users[0], "/users/me/presence", { status: "active", ping_only: false, last_update_id: mark }));

    const written = await Promise.all(users.map((u) => writtenAt(u.id, t1)));
    assert.deepEqual(written.map((r) => [r.last_active_time, r.last_connected_time]), [[t1, t1], [t1, t1], [t1, t1]]);
    const ids = written.map((r) => r.last_update_id).sort((a, b) => a - b);
    assert.ok(ids[0] > mark, "new sequence numbers");
    assert.equal(new Set(ids).size, 3, "one number each");
    // A poll from the old number now sees all three.
    const body = expectSuccess(await server.api.post(users[0], "/users/me/presence", { status: "active", ping_only: false, last_update_id: mark }));
    for (const u of users) assert.equal((body.presences as Record<string, { active_timestamp: number }>)[String(u.id)]?.active_timestamp, t1);
  });

  test("turning invisible drops the waiting report, which never lands after it", async () => {
    const y = await createUser(server);
    await ping(server, y);
    await advance(server, 60);
    await ping(server, y); // waits
    expectSuccess(await server.api.post(y, "/users/me/status", { away: true }));
    const hidden = await rowOf(server, y.id);
    // Past the batch's time: still the invisible row.
    await new Promise((r) => setTimeout(r, DELAY_MS + 500));
    assert.deepEqual(await rowOf(server, y.id), hidden);
  });

  test("what waits is written when the server stops", async () => {
    const z = await createUser(server);
    // Another process on the same store, whose batch would wait ten minutes.
    const peer = await startServerOnStore({ ...server.store, drop: async () => {} }, server.fixtures, { PRESENCE_WRITE_DELAY_MS: "600000" });
    let t: number;
    try {
      await ping(peer, z);
      t = await advance(peer, 60);
      await ping(peer, z);
      assert.notEqual((await rowOf(server, z.id))?.last_connected_time, t);
    } finally {
      await peer.stop();
    }
    assert.equal((await rowOf(server, z.id))?.last_connected_time, t);
  });
});
