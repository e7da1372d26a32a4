/**
 * Routes for driving the server from tests (the clock, the read cache). Registered only when PARLEY_TEST_CONTROL=1 (never
 * in production): lets a test move time forward instead of sleeping.
 */
import { z } from "zod";
import { ManualClock } from "../clock.ts";
import { defineEndpoint, type Endpoint } from "./endpoint.ts";
import { JsonableError } from "../errors.ts";
import { int } from "./params.ts";
import { syncReads } from "../actions/context.ts";

/** POST /api/v1/__test/advance_clock {seconds}: fires every timer that comes due. */
export function testControlEndpoints(): Endpoint[] {
  return [
    defineEndpoint({
      method: "POST",
      path: "/__test/advance_clock",
      auth: "none",
      params: z.object({ seconds: int({ min: 0 }) }),
      handler: async ({ seconds }, ctx) => {
        if (!(ctx.clock instanceof ManualClock)) throw new JsonableError("The clock is not manual");
        ctx.clock.advance(seconds * 1000);
        return { now_ms: ctx.clock.nowMs() };
      },
    }),
    // POST /api/v1/__test/sync_read_cache: answers once the server has noticed every commit made
    // before it (a test's direct database writes), so its next request reads them.
    defineEndpoint({
      method: "POST",
      path: "/__test/sync_read_cache",
      auth: "none",
      params: z.object({}),
      handler: async (_params, ctx) => {
        await syncReads(ctx);
        return {};
      },
    }),
  ];
}
