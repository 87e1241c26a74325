/**
 * Handlers on Pi's hot events only schedule: background work (the outside-change probe, a check)
 * starts on a later macrotask, so no process is spawned and no file is read before the handler has
 * returned, and a prompt that arrives first cancels the work before anything started.
 */

/** Resolves on the next macrotask (after pending I/O callbacks and the current handler chain). */
export function nextMacrotask(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}
