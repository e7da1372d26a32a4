/**
 * Runs of one scenario (one per store) that set up at once and measure in turn. Each run does
 * its set-up (a fresh store, users, seeding) and starts its first Parley server concurrently
 * with the others; then it waits until every run of the group has got that far (or failed), and
 * until the runs before it have finished, so that nothing else works on the machine while it
 * measures (the other runs' servers sit idle). A Parley start costs seconds of CPU here, and
 * this way the stores' starts share the two cores instead of following one another.
 * servers.ts calls takeTurn() once a server answers, unless the scenario sets its store up
 * through that server first (`setUpThrough`) and calls it itself when done; outside inTurns()
 * it does nothing.
 */
import { AsyncLocalStorage } from "node:async_hooks";

type RunContext = { arrive(): void; turn: Promise<void>; hasTurn: boolean };

const current = new AsyncLocalStorage<RunContext>();

/** Runs `runs` concurrently, each measuring in turn (in the order given); resolves to their results in that order. */
export async function inTurns<T>(runs: readonly (() => Promise<T>)[]): Promise<T[]> {
  let waiting = runs.length;
  let openBarrier!: () => void;
  const everyoneReady = new Promise<void>((resolve) => (openBarrier = resolve));
  let previousDone: Promise<unknown> = Promise.resolve();
  const results = runs.map((run) => {
    let arrived = false;
    const arrive = () => {
      if (arrived) return;
      arrived = true;
      waiting -= 1;
      if (waiting === 0) openBarrier();
    };
    const context: RunContext = { arrive, turn: Promise.all([everyoneReady, previousDone]).then(() => undefined), hasTurn: false };
    const done = current.run(context, async () => {
      try {
        return await run();
      } finally {
        arrive();
      }
    });
    previousDone = done.catch(() => undefined);
    return done;
  });
  return Promise.all(results);
}

/** Within inTurns(): marks this run as set up and waits for its turn to measure. Elsewhere, or once it has its turn: returns at once. */
export async function takeTurn(): Promise<void> {
  const context = current.getStore();
  if (!context || context.hasTurn) return;
  context.arrive();
  await context.turn;
  context.hasTurn = true;
}
