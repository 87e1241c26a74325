/**
 * The reason every owned `AbortController` (the scheduler's checks, the outside-change probe) is
 * aborted with. Preallocated once: `abort()` without a reason builds a new `DOMException` (with a
 * stack) each time, which showed up on the `input` hot path (a probe is still pending whenever the
 * next prompt arrives). Nothing reads the reason.
 */
export const ABORT_REASON: DOMException = Object.freeze(
	new DOMException("pi-jscpd: cancelled", "AbortError"),
);
