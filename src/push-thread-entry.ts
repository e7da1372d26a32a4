/**
 * What the push worker's thread loads (push-thread.ts starts it): a file of its own, so that the
 * compiled server (one bundle, bin/server-build.js) gives the thread an entry that runs only the
 * worker's side.
 */
import { parentPort } from "node:worker_threads";
import { pushThreadConfig, runWorkerThread } from "./push-thread.ts";

const config = pushThreadConfig();
if (parentPort && config) void runWorkerThread(parentPort, config);
