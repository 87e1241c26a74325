/**
 * Observation masking, the pure part: which tool results of a context window are replaced by a
 * one-line stub, and the stub's text. The session file keeps every output; only what is sent
 * changes. Each rule is one function here (tests named after them in masking.unit.test.ts):
 *
 * - {@link maskable}: only successful tool results large enough to be worth a stub; errors, the
 *   user's messages and every other message are never masked;
 * - {@link maskingHorizon}: the horizon moves in whole steps (every `stepTurns` turns, everything
 *   older than `keepTurns` turns at once), so requests between two steps share their prefix;
 * - {@link largeOutputHorizon}: large outputs are masked sooner, at the same steps;
 * - {@link seenByModel}: a result is masked only after the model answered a request that held it;
 * - {@link stubText}: stable text (no clock, no counter), the same in every request.
 *
 * The plan is incremental: {@link observe} commits messages up to the newest assistant message
 * and {@link advance} moves the horizon; neither looks at committed messages again.
 */
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";

/** Masking settings. */
export interface MaskingSettings {
	/** Whether old tool output is masked. */
	readonly enabled: boolean;
	/** Turns a tool result stays as it was after the turn that produced it (N). */
	readonly keepTurns: number;
	/** Turns between two masking steps (K). */
	readonly stepTurns: number;
	/** Turns a large output ({@link LARGE_OUTPUT_CHARS} or more) stays as it was (at most `keepTurns`). */
	readonly keepLargeTurns: number;
}

/** Default turns a result stays in full (chosen with the `context-economics` bench). */
export const DEFAULT_KEEP_TURNS = 5;
/** Default turns between masking steps (chosen with the `context-economics` bench). */
export const DEFAULT_STEP_TURNS = 15;
/** Default turns a large output stays in full: masked at the first step after the model answered it. */
export const DEFAULT_KEEP_LARGE_TURNS = 1;
/**
 * Output this large (characters, about 1,000 tokens) is masked sooner: re-sending it costs most, and
 * the model has read it once (`context-economics` bench: the large-output workload misses the target
 * when large outputs wait as long as small ones).
 */
export const LARGE_OUTPUT_CHARS = 4_000;

/** Longest tool output `context_recall` returns whole (a longer one comes back cut). */
export const MAX_RECALL_CHARS = 60_000;

/** Smallest output (characters) that is masked: below this a stub saves too little to be worth it. */
export const MIN_MASKED_CHARS = 800;

/** The part of a request message the plan reads (Pi's messages satisfy it). */
export interface PlanMessage {
	readonly role: string;
	readonly toolCallId?: string;
	readonly isError?: boolean;
	readonly content?: unknown;
	/** An assistant message's stop reason ("error" and "aborted" answers are not sent again). */
	readonly stopReason?: string;
}

/** A tool result the plan may mask: where it is in the request and the turn that called it. */
export interface MaskCandidate {
	/** The tool call's id. */
	readonly toolCallId: string;
	/** Index of the result in the request's message list. */
	readonly index: number;
	/** Completed answers before the result in the window (the calling turn, 1-based). */
	readonly turn: number;
	/** Whether the output is large ({@link LARGE_OUTPUT_CHARS} or more, or images). */
	readonly large?: boolean;
}

/** The masking plan of one context window. */
export interface MaskPlan {
	/** Completed answers committed (turns the model has answered in this window). */
	readonly turns: number;
	/** Results of turns up to this one are masked. */
	readonly horizon: number;
	/** Maskable results not masked yet, oldest first. */
	readonly pending: readonly MaskCandidate[];
	/** Masked results, in the order they were masked. */
	readonly masked: readonly MaskCandidate[];
	/** Messages committed: the index right after the newest committed assistant message. */
	readonly committed: number;
}

/** An empty plan (a new window, or a request that no longer continues the last one). */
export const EMPTY_PLAN: MaskPlan = Object.freeze({
	turns: 0,
	horizon: 0,
	pending: [],
	masked: [],
	committed: 0,
});

/** Characters and images of a message's content. */
export function contentSize(content: unknown): { chars: number; images: number } {
	if (typeof content === "string") return { chars: content.length, images: 0 };
	let chars = 0;
	let images = 0;
	if (Array.isArray(content)) {
		for (const block of content as { type?: unknown; text?: unknown }[]) {
			if (block?.type === "text" && typeof block.text === "string") chars += block.text.length;
			else if (block?.type === "image") images++;
		}
	}
	return { chars, images };
}

/**
 * Rule: only a successful tool result worth a stub is masked. Errors stay (the model needs to see
 * what failed), and the user's messages, the model's messages and notes are never tool results.
 */
export function maskable(message: PlanMessage): boolean {
	if (message.role !== "toolResult" || message.isError === true) return false;
	if (typeof message.toolCallId !== "string" || message.toolCallId.length === 0) return false;
	const size = contentSize(message.content);
	return size.images > 0 || size.chars >= MIN_MASKED_CHARS;
}

/**
 * Rule: the horizon moves in steps. With `turns` answered turns, results of turns up to the
 * returned one are masked: a multiple of `stepTurns`, at least `keepTurns` turns back.
 */
export function maskingHorizon(
	turns: number,
	settings: Pick<MaskingSettings, "keepTurns" | "stepTurns">,
): number {
	const keep = Math.max(1, settings.keepTurns);
	const step = Math.max(1, settings.stepTurns);
	if (turns <= keep) return 0;
	return Math.floor((turns - keep) / step) * step;
}

/**
 * Rule: large outputs are masked sooner, still only at steps. The step that moves the horizon to
 * `horizon` also masks large outputs up to `keepTurns − keepLargeTurns` turns later: they stay at
 * least `keepLargeTurns` turns. Derived from the horizon alone, so it moves only when it moves.
 */
export function largeOutputHorizon(
	horizon: number,
	settings: Pick<MaskingSettings, "keepTurns" | "keepLargeTurns">,
): number {
	if (horizon === 0) return 0;
	const keep = Math.max(1, settings.keepTurns);
	return horizon + keep - Math.min(keep, Math.max(1, settings.keepLargeTurns));
}

/** Whether a result counts as large for {@link largeOutputHorizon}. */
export function isLarge(message: PlanMessage): boolean {
	const size = contentSize(message.content);
	return size.images > 0 || size.chars >= LARGE_OUTPUT_CHARS;
}

/**
 * An answer the model completed: a failed or aborted one never reaches the model again (Pi drops
 * it from later requests), so it does not count as a turn that saw the results before it.
 */
export function answered(message: PlanMessage): boolean {
	return message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted";
}

/** Rule: the model has seen a result once it answered a later request (an answer after it). */
export function seenByModel(candidate: MaskCandidate, turns: number): boolean {
	return turns > candidate.turn;
}

/**
 * Commits `messages[plan.committed ..]` up to and including the newest assistant message: counts
 * turns and records maskable results. Messages after the newest assistant message (results the
 * model has not answered yet, a new prompt, notes other hooks appended) are left for the next
 * request. `onAssistant` sees each committed assistant message (the adapter reads tool calls).
 */
export function observe(
	plan: MaskPlan,
	messages: readonly PlanMessage[],
	onAssistant?: (message: PlanMessage) => void,
): MaskPlan {
	let last = -1;
	for (let i = messages.length - 1; i >= plan.committed; i--) {
		if (messages[i]?.role === "assistant") {
			last = i;
			break;
		}
	}
	if (last < 0) return plan;
	let turns = plan.turns;
	const pending = [...plan.pending];
	for (let i = plan.committed; i <= last; i++) {
		const message = messages[i] as PlanMessage;
		if (message.role === "assistant") {
			if (answered(message)) turns++;
			onAssistant?.(message);
		} else if (maskable(message)) {
			const candidate = { toolCallId: message.toolCallId as string, index: i, turn: turns };
			pending.push(isLarge(message) ? { ...candidate, large: true } : candidate);
		}
	}
	return { ...plan, turns, pending, committed: last + 1 };
}

/** Moves the horizon; returns the plan and the results masked by this step (none between steps). */
export function advance(
	plan: MaskPlan,
	settings: Pick<MaskingSettings, "keepTurns" | "stepTurns" | "keepLargeTurns">,
): { plan: MaskPlan; newlyMasked: readonly MaskCandidate[] } {
	const horizon = Math.max(plan.horizon, maskingHorizon(plan.turns, settings));
	const large = largeOutputHorizon(horizon, settings);
	if (horizon === plan.horizon && (plan.pending[0]?.turn ?? Number.POSITIVE_INFINITY) > large)
		return { plan, newlyMasked: [] };
	const newlyMasked: MaskCandidate[] = [];
	const pending: MaskCandidate[] = [];
	for (const candidate of plan.pending) {
		const due = candidate.turn <= (candidate.large ? large : horizon);
		if (due && seenByModel(candidate, plan.turns)) newlyMasked.push(candidate);
		else pending.push(candidate);
	}
	return { plan: { ...plan, horizon, pending, masked: [...plan.masked, ...newlyMasked] }, newlyMasked };
}

/** Argument keys that name what a call worked on, in the order a stub prefers them. */
const NAMING_KEYS = ["path", "file_path", "command", "pattern", "query", "url", "args"] as const;
/** Longest call description in a stub. */
const MAX_CALL_CHARS = 120;

function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length <= max ? flat : `${cutText(flat, max - 1)}…`;
}

/** Longest value of another argument a stub names (longer ones are contents, not names). */
const MAX_EXTRA_VALUE_CHARS = 40;

/** The other short scalar arguments (`offset=200`, `pattern=TODO`), in the call's order. */
function extraArgs(record: Record<string, unknown>, main: string): string {
	const parts: string[] = [];
	for (const [key, value] of Object.entries(record)) {
		if (key === main) continue;
		if (typeof value === "number" || typeof value === "boolean") parts.push(`${key}=${value}`);
		else if (typeof value === "string" && value.trim() && value.length <= MAX_EXTRA_VALUE_CHARS)
			parts.push(`${key}=${oneLine(value, MAX_EXTRA_VALUE_CHARS)}`);
	}
	return parts.length > 0 ? ` ${parts.join(" ")}` : "";
}

/**
 * Rule: a stub names its call apart from the others: the path, command or pattern, then the other
 * short arguments (two reads of one file at different offsets, two greps in one folder, differ),
 * else its arguments as JSON. Contents (a write's text, an edit's replacements) are left out.
 */
export function describeCall(toolName: string, args: unknown): string {
	const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
	for (const key of NAMING_KEYS) {
		const value = record[key];
		const main =
			typeof value === "string" && value.trim()
				? value
				: Array.isArray(value) && value.length > 0
					? value.map(String).join(" ")
					: undefined;
		if (main !== undefined)
			return `${toolName} ${oneLine(`${main}${extraArgs(record, key)}`, MAX_CALL_CHARS)}`;
	}
	let json = "";
	try {
		json = JSON.stringify(record) ?? "";
	} catch {
		json = "";
	}
	return json && json !== "{}" ? `${toolName} ${oneLine(json, MAX_CALL_CHARS)}` : toolName;
}

/** What a stub says. */
export interface StubFacts {
	/** The call, as {@link describeCall} names it. */
	readonly call: string;
	/** Characters of text in the hidden output. */
	readonly chars: number;
	/** Images in the hidden output. */
	readonly images: number;
	/** The reference `context_recall` takes. */
	readonly ref: string;
}

/** Rule: a stub is one stable line (no clock, no counter) naming the call, its size and how to get it back. */
export function stubText(facts: StubFacts): string {
	const images = facts.images > 0 ? ` and ${facts.images} image${facts.images === 1 ? "" : "s"}` : "";
	const returns =
		facts.chars > MAX_RECALL_CHARS ? `returns its first ${MAX_RECALL_CHARS} characters` : "returns it";
	return `[pi-reset] Old output hidden to save context: ${facts.call} (${facts.chars} characters${images}). context_recall ref ${facts.ref} ${returns}.`;
}
