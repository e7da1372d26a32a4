/**
 * Routes for driving the clock from tests. Registered only when PARLEY_TEST_CONTROL=1 (never
 * in production): lets a test move time forward instead of sleeping.
 */
import { z } from "zod";
import { ManualClock } from "../clock.ts";
import { defineEndpoint, type Endpoint } from "./endpoint.ts";
import { JsonableError } from "../errors.ts";
import { int } from "./params.ts";

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
  ];
}
