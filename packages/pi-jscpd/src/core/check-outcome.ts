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
}
