/**
 * Every text pi-reset shows the model or the user. Pure functions, no Pi imports.
 */
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { HANDOFF_REQUEST, presentHandoff } from "./handoff.js";

/** Largest handoff kept, in characters (a longer one is cut by `bound`, not refused by the tool schema). */
export const MAX_HANDOFF_CHARS = 8000;
/** Largest excerpt of the user's most recent request carried into a new window. */
export const MAX_REQUEST_CHARS = 4000;
/** Tokens of margin before Pi's compaction threshold at which the checkpoint warning fires. */
export const WARNING_MARGIN_TOKENS = 12288;
/** Pi's default `compaction.reserveTokens`. */
export const DEFAULT_RESERVE_TOKENS = 16384;

/** Cuts `text` to `max` characters, saying how much was left out. */
export function bound(text: string, max: number, where = "the session file"): string {
	if (text.length <= max) return text;
	const kept = cutText(text, max);
	return `${kept}\n[… ${text.length - kept.length} more characters are in ${where}]`;
}

/** What a boot text is made of. */
export interface BootFacts {
	/** The new window's id. */
	readonly windowId: string;
	/** Why the window was reset. */
	readonly cause: "new_context" | "/reset" | "manual" | "threshold" | "overflow";
	/** The handoff note, if one was given. */
	readonly handoff: string | undefined;
	/** The user's most recent request verbatim (already bounded), if it is not kept in the window. */
	readonly userRequest: string | undefined;
	/** What stays in the new window after this text. */
	readonly kept: "nothing" | "turn" | "prompt";
	/** Set when the turn in progress was too large to keep. */
	readonly droppedTurn?: boolean;
	/** The user's requests before `userRequest`, each from before an earlier reset, newest first. */
	readonly earlierRequests?: readonly string[];
	/** The mechanical digest of the closed window, if it did anything. */
	readonly digest?: string;
	/** `/reset --fresh`: the user asked to carry nothing but the handoff. */
	readonly fresh?: boolean;
	/** Set when `context_recall` is not among the model's tools: the text does not offer it. */
	readonly recallUnavailable?: boolean;
}

const CAUSES: Record<BootFacts["cause"], string> = {
	new_context: "you called new_context",
	"/reset": "the user ran /reset",
	manual: "the user compacted the session",
	threshold: "the context window was nearly full",
	overflow: "the context window overflowed",
};

/** Lines of quoted data that start like one of pi-reset's own lines (after optional spaces). */
const MARKER_LINE = /^([ \t]*)\[pi-reset\]/gm;

/** Most characters quoting may add to an already bounded text (then it is cut again). */
const QUOTE_SLACK = 256;

/**
 * Treats a handoff or user request as data inside a boot text: a line that starts with
 * `[pi-reset]` is quoted (`> [pi-reset]…`), so quoted text can never add a second boot header or
 * pose as a pi-reset notice. Adds 2 characters per such line, at most {@link QUOTE_SLACK} in all.
 */
export function quoteData(text: string): string {
	const quoted = text.replace(MARKER_LINE, "$1> [pi-reset]");
	return bound(quoted, text.length + QUOTE_SLACK);
}

/** The boot note's line on recall (issue 32): earlier windows can be searched. */
export const RECALL_LINE =
	"Earlier windows can be searched: context_recall with a query (or a ref) returns their text.";

/** The digest's line naming the files a window modified (digest.ts writes it; the closing line reads it). */
export const MODIFIED_FILES_LABEL = "Files it modified (they already contain that work):";

/** The boot note's line for `/reset --fresh` (a later reset in a row reads no further back than it). */
export const FRESH_START_LINE =
	"The user asked for a fresh start: nothing else from the earlier windows is carried over.";

/** The text that opens a new window: window id, handoff, the user's request, where history is. */
export function bootText(facts: BootFacts): string {
	const lines = [
		`[pi-reset] Context window ${facts.windowId} starts here because ${CAUSES[facts.cause]}.`,
		"Earlier conversation is not in this window; the full history stays in the session file.",
		...(facts.recallUnavailable ? [] : [RECALL_LINE]),
	];
	if (facts.handoff) lines.push("", ...presentHandoff(facts.handoff, quoteData));
	else lines.push("", "No handoff note was written for this window.");
	if (facts.fresh) lines.push("", FRESH_START_LINE);
	if (facts.digest)
		lines.push("", "What the previous window did (a mechanical digest):", quoteData(facts.digest));
	if (facts.userRequest) {
		// After an idle /reset the user's new message follows: the carried request is the one before it.
		const label =
			facts.kept === "prompt"
				? "The user's latest request before this reset, verbatim:"
				: "The user's most recent request, verbatim:";
		lines.push("", label, quoteData(facts.userRequest));
		if (facts.earlierRequests?.length)
			lines.push(
				"",
				// A user who changed the task: the older requests are context, never the task again.
				"The user's older requests, newest first (where they differ, the newer one wins):",
				...facts.earlierRequests.flatMap((request, i) => (i === 0 ? [] : [""]).concat(quoteData(request))),
			);
	}
	if (facts.kept === "turn") {
		lines.push("", "The turn in progress (your tool calls and their results) follows unchanged.");
	} else if (facts.kept === "prompt") {
		lines.push("", "The user's new message follows; where it changes the task, it wins.");
	}
	if (facts.droppedTurn) {
		lines.push(
			"",
			"The tool results of the turn in progress were too large to carry over; read again only what you still need.",
		);
	}
	lines.push("", closingLine(facts));
	return lines.join("\n");
}

/**
 * The last line: where to go on from, never "start over", and never "continue the task" when
 * nothing says what the task is. After an idle `/reset` the user's new message follows and
 * decides: the old task goes on only where that message goes on with it (a new topic wins).
 */
function closingLine(facts: BootFacts): string {
	const asked =
		facts.kept === "prompt" ? "Where the user's new message goes on with this task, go on" : "Go on";
	if (facts.handoff)
		return `${asked} from the next action. Work the handoff lists as done is finished: do not redo it; check it only if something contradicts it.`;
	// Only a digest that lists modified files can say the finished work is in them.
	if (facts.digest?.includes(MODIFIED_FILES_LABEL))
		return `${asked} from where the previous window stopped. Its finished work is in the files it modified: read them when you need their state; do not redo it.`;
	if (facts.digest) return `${asked} from where the previous window stopped; do not redo its finished work.`;
	if (facts.userRequest)
		return facts.kept === "prompt"
			? "Where the user's new message goes on with this task, continue it from here."
			: "Continue the task from here.";
	if (facts.kept === "turn") return "Go on with the turn in progress.";
	return facts.kept === "prompt"
		? "No earlier task is carried over: start from the user's new message."
		: "No earlier task is carried over: wait for the user's next message.";
}

/** The compaction summary of an explicit reset, whose boot text follows as a hidden message. */
export function resetSummary(windowId: string): string {
	return `[pi-reset] Context reset. Window ${windowId} begins with the boot note that follows.`;
}

/** The hidden checkpoint warning. */
export function warningText(windowId: string, remaining: number): string {
	return [
		`[pi-reset] Checkpoint: about ${Math.max(0, remaining)} tokens are left in context window ${windowId}.`,
		"Finish the step you are on, then call new_context with a handoff in these sections:",
		HANDOFF_REQUEST,
		"Do not start new large work here.",
	].join(" ");
}

/** The notice for a pending reset that was dropped. */
export function cancelledText(why: "aborted" | "stale" | "dropped", handoffKept: boolean): string {
	const kept = handoffKept ? " The handoff is kept: the next reset (any cause) carries it." : "";
	if (why === "aborted")
		return `pi-reset: the run was aborted before its reset, so nothing was reset and history is unchanged.${kept}`;
	if (why === "dropped")
		return `pi-reset: the pending reset was dropped (a reload, session switch or /tree navigation drops pending resets); run /reset again to reset.${kept}`;
	return `pi-reset: a reset requested before the session changed was dropped.${kept}`;
}

/** The notice for a reset Pi did not commit (another extension replaced or dropped it). */
export function commitMissingText(facts: {
	readonly proposal: { readonly windowId: string; readonly kind: string };
	readonly requeued?: { readonly source: "tool" | "command" };
}): string {
	const id = facts.proposal.windowId;
	if (facts.proposal.kind !== "compaction")
		return `pi-reset: the reset to window ${id} was not committed (another extension replaced it). History is unchanged.`;
	const pending = facts.requeued
		? ` Your ${facts.requeued.source === "tool" ? "new_context" : "/reset"} request is still pending; the reset happens at the next boundary or with your next message.`
		: "";
	return `pi-reset: another extension's compaction replaced the reset to window ${id}; its summary is kept (Pi keeps the answer of the extension loaded last) and the context was compacted the way that extension chose.${pending}`;
}

/** Tool result texts. */
export const toolTexts = {
	accepted: (windowId: string) =>
		`Reset of window ${windowId} requested. It happens after this tool batch; the new window starts with your handoff.`,
	already: (windowId: string) =>
		`A reset of window ${windowId} is already pending; this call changed nothing.`,
	off: "pi-reset is off for this session (the user can turn it on with /reset on). No reset was requested.",
} as const;

/** Inputs of the footer status. */
export interface StatusFacts {
	readonly enabled: boolean;
	readonly windowId: string;
	readonly resets: number;
	readonly pending: boolean;
}

/**
 * Footer text under the `pi-reset` key: `reset: <state>[ · <detail>]`. Pi joins every extension's
 * status with a single space, so the name and colon mark where this one starts.
 */
export function footerText(facts: StatusFacts): string {
	if (!facts.enabled) return "reset: off";
	const base = `reset: ${facts.windowId}`;
	return facts.pending ? `${base} · pending` : base;
}

/** What `/reset status` says about masking. */
export interface MaskingFacts {
	readonly enabled: boolean;
	/** False when `context_recall` is not among the model's tools (then nothing is masked). */
	readonly recallAvailable?: boolean;
	readonly keepTurns: number;
	readonly stepTurns: number;
	/** Turns a large output stays in full (see core/masking.ts `LARGE_OUTPUT_CHARS`). */
	readonly keepLargeTurns?: number;
}

/** The masking line of `/reset status`. */
export function maskingStatus(facts: MaskingFacts | undefined): string {
	if (!facts?.enabled)
		return 'Old tool output is sent in full (masking is off: "masking": true in pi-reset.json turns it on).';
	if (facts.recallAvailable === false)
		return "Old tool output is sent in full: masking needs the context_recall tool, and it is not among the model's tools now.";
	const large =
		facts.keepLargeTurns !== undefined && facts.keepLargeTurns < facts.keepTurns
			? ` (output of 4,000 characters or more: older than ${facts.keepLargeTurns} turn${facts.keepLargeTurns === 1 ? "" : "s"})`
			: "";
	return `Tool output older than ${facts.keepTurns} turns${large} is sent as a one-line note (every ${facts.stepTurns} turns, all at once; the session keeps it and context_recall returns it). "masking": false in pi-reset.json turns this off.`;
}

/** `/reset status` report. */
export function statusReport(
	facts: StatusFacts & {
		readonly tokensLeft: number | undefined;
		readonly warned: boolean;
		readonly masking?: MaskingFacts;
	},
): string {
	if (!facts.enabled)
		return "pi-reset is off for this session. Pi's own compaction applies. /reset on turns it back on.";
	const left =
		facts.tokensLeft === undefined
			? "unknown until the next model response"
			: facts.tokensLeft <= 0 || facts.warned
				? "0 (the checkpoint warning was given in this window)"
				: String(facts.tokensLeft);
	return [
		`pi-reset is on. Window: ${facts.windowId}.`,
		`Tokens left before the checkpoint warning: ${left}.`,
		`Resets so far: ${facts.resets}.`,
		facts.pending ? "A reset is pending." : "No reset is pending.",
		maskingStatus(facts.masking),
	].join("\n");
}

/** Help for `/reset`. */
export const COMMAND_HELP = [
	"/reset [handoff]  start a new context window, carrying the optional handoff note, your latest",
	"                  request and a digest of the closing window (files changed and read, last tools)",
	"/reset --fresh [handoff]  the same without your earlier request and the digest",
	"/reset status     window id, tokens left before the checkpoint warning, resets so far",
	"/reset on|off     turn pi-reset on or off for this session",
	"Only a bare subcommand word is a subcommand: /reset status of the db is in notes.md resets with",
	"that handoff. /reset -- <handoff> takes the handoff literally, even a single word like off.",
].join("\n");
