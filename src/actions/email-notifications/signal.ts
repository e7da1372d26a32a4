/**
 * How this process's email-notification worker hears that a send queued a job for it (after the
 * send's transaction committed), so it decides at once rather than at its next look (which is
 * also how other processes' jobs are found).
 */
import { JobSignal } from "../job-loop.ts";

/** Fired once a transaction that wrote an email-notification job has committed. */
export const emailNotifyJobQueued = new JobSignal();
