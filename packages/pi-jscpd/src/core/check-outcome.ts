/** What the last check of any kind ended with, as status and the footer show it. */

/** A terminal outcome for status. */
export interface CheckOutcome {
	/** clean, findings, incomplete (no findings, but not every change was visible), unavailable, timeout or failed. */
	readonly kind: "clean" | "findings" | "incomplete" | "unavailable" | "timeout" | "failed";
	/** One line for status. */
	readonly text: string;
	/** Findings delivered (kind `findings`). */
	readonly delivered?: number;
	/** What the check read: the changed and related files, or the whole project and why. */
	readonly scope?: string;
	/** Where the check's time went, in ms (the bench reads it; status does not show it). */
	readonly ms?: StepTimes;
}

/** Time of each step of a check (find-new.ts), in ms. */
export interface StepTimes {
	/** Waiting for the outside-change probe (the changed files). */
	readonly changes: number;
	/** The focus: reading the changed files, looking up their partners. */
	readonly focus: number;
	/** The jscpd run, its report read. */
	readonly scan: number;
	/** The baseline index, the project-wide index now, the selection. */
	readonly compare: number;
}
