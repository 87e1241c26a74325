/**
 * What the stuck detector sees of one response (pure): its tool calls with their results, reduced
 * to fixed-size fingerprints and a short human label, or the fingerprint of a text-only reply. Built
 * once per response from the new messages only (the assistant message and its tool results); no raw
 * output is kept. Volatile parts of tool output (durations, timestamps, long ids) are ignored, so a
 * re-run with the same failure matches; small counts ("3 failed") are kept, so fixing tests is progress.
 */
import { oneLine } from "./quote.js";

/** One response as the stuck rules read it. */
export interface StuckStep {
	/** Call and result fingerprint: equal steps did the same thing and saw the same thing. */
	readonly action: string;
	/** Fingerprint of the error output when every tool result of the response failed, else null. */
	readonly error: string | null;
	/** What the user reads: the command, or the tool and its path (bounded, one line). */
	readonly label: string;
	/** Whether the response called tools (a text-only reply is not an action). */
	readonly tools: boolean;
}

/** A tool call of a response, as the assistant message carries it. */
export interface CallFacts {
	readonly id: string;
	readonly name: string;
	readonly args: unknown;
}

/** A finished tool call (the toolResult message). */
export interface ResultFacts {
	readonly id: string;
	readonly isError: boolean;
	readonly text: string;
}

/** How much of one tool output is fingerprinted (head and tail): per-turn work stays small. */
const HASHED_EDGE = 4096;
/** Longest label, in characters. */
const MAX_LABEL = 60;

/** Tool calls of an assistant message's content (id, name, arguments). */
export function callsOf(content: unknown): CallFacts[] {
	if (!Array.isArray(content)) return [];
	const calls: CallFacts[] = [];
	for (const block of content as { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown }[]) {
		if (block?.type === "toolCall" && typeof block.name === "string")
			calls.push({ id: String(block.id ?? ""), name: block.name, args: block.arguments });
	}
	return calls;
}

/** Text of a tool result's content blocks. */
export function resultText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const texts: string[] = [];
	for (const block of content as { type?: unknown; text?: unknown }[])
		if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
	return texts.join("\n");
}

/** FNV-1a over a string (8 hex chars). */
function fnv(text: string, seed = 0x811c9dc5): number {
	let hash = seed;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash;
}

function hex(hash: number): string {
	return hash.toString(16).padStart(8, "0");
}

/**
 * The first entry under a temp directory (`/tmp/vite-build-Qx7aZ2`, `/var/folders/…/T/tmp-1-AbC`,
 * `…\\Temp\\jest_x1`): its name is random per run (mkdtemp), so a re-run with the same failure differs there.
 */
const TEMP_ENTRY =
	/((?:^|[\s'"`(=:])(?:\/private)?(?:\/tmp|\/var\/tmp|\/var\/folders\/[^/\s]+\/[^/\s]+\/T)\/|\\temp\\)[^/\\\s'"`:)]+/gi;

/**
 * The directories under a temp entry (after {@link TEMP_ENTRY}): test runners number them per run
 * (`/tmp/pytest-of-me/pytest-14/test_load0/`), so their digits are volatile; the file name is kept.
 */
const TEMP_SUBDIRS = /<tmp>[^\s'"`:)]*/g;

/**
 * Tool output without its volatile parts: temp directory names (and numbered directories under
 * them), UUIDs, memory addresses (`0x7f…`), pids and random seeds, ISO, clock and epoch times,
 * durations (`1.2s`, `340 ms`, `0m1.234s`, `1m23s`), ephemeral ports and long hex ids; whitespace
 * collapsed. Kept, because they move when work progresses: a line:column after a colon
 * (`src/import.ts:48:17`, not a clock time), long decimal numbers (row ids, cursors: a hex id has a
 * letter in it) and other counts. Only the head and tail are read (a huge output is fingerprinted in
 * O(1) of its size beyond that).
 */
export function normalizeToolOutput(text: string): string {
	const edges =
		text.length > 2 * HASHED_EDGE
			? `${text.slice(0, HASHED_EDGE)}\u0000${text.length}\u0000${text.slice(-HASHED_EDGE)}`
			: text;
	return edges
		.replace(TEMP_ENTRY, "$1<tmp>")
		.replace(TEMP_SUBDIRS, (path) => path.replace(/\d+(?=[^/\\]*[/\\])/g, "#"))
		.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>")
		.replace(/\b0x[0-9a-f]{4,}\b/gi, "<addr>")
		.replace(/\b(node|deno|bun):\d+\b/gi, "$1:<pid>")
		.replace(/\b(pid|seed)\b[\s:=#]*-?\d+/gi, (_match, word: string) => `${word.toLowerCase()} <n>`)
		.replace(/\d{4}-\d\d-\d\d[t ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:z|[+-]\d\d:?\d\d)?/gi, "<time>")
		.replace(/(?<!:)\b\d{1,2}:\d\d(?::\d\d(?:[.,]\d+)?)?\b/g, "<time>")
		.replace(/\b(?:\d+h)?(?:\d+m)?\d+(?:[.,]\d+)?(?:ms|s)\b/gi, "<dur>")
		.replace(/\b\d+(?:[.,]\d+)?\s?(?:ms|s|sec|secs|seconds|m|min|h|µs|us|ns)\b/gi, "<dur>")
		.replace(/\b(?=[0-9]*[a-f])[0-9a-f]{8,}\b/gi, "<id>")
		.replace(/\b1\d{9}(?:\d{3})?\b/g, "<time>")
		.replace(/(?<=(?:localhost|\d|\]):)\d{5}\b/g, "<port>")
		.replace(/\s+/g, " ")
		.trim();
}

function field(args: unknown, keys: readonly string[]): string | undefined {
	if (typeof args !== "object" || args === null) return undefined;
	for (const key of keys) {
		const value = (args as Record<string, unknown>)[key];
		if (typeof value === "string" && value.trim()) return value;
	}
	return undefined;
}

/** The label of one call: a shell command as written, else the tool and its path or pattern. */
export function callLabel(call: CallFacts): string {
	const command = field(call.args, ["command", "cmd"]);
	if (command !== undefined) return oneLine(command, MAX_LABEL);
	const target = field(call.args, ["path", "file_path", "file", "pattern", "url", "query"]);
	return oneLine(target ? `${call.name} ${target}` : call.name, MAX_LABEL);
}

/** Stable text of a call's arguments (keys sorted), for its fingerprint. */
function argsText(args: unknown): string {
	try {
		return JSON.stringify(args, (_key, value) =>
			value && typeof value === "object" && !Array.isArray(value)
				? Object.fromEntries(
						Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
					)
				: value,
		);
	} catch {
		return "?";
	}
}

/** Normalised output of a failure with nothing but Pi's exit status (or nothing at all). */
const SILENT_FAILURE = /^(?:\(no output\))?\s*(?:command exited with code -?\d+)?$/i;

/** Goal tools are the goal's own bookkeeping, not work: they never make a step. */
const GOAL_TOOLS = new Set(["goal_complete", "goal_blocked", "goal_wait"]);

/**
 * The step of a response with tool calls once its results arrived, or undefined when it called a
 * goal tool (a goal_wait is a deliberate wait: polling with it is never stuck; the rules restart).
 */
export function toolStep(
	calls: readonly CallFacts[],
	results: readonly ResultFacts[],
): StuckStep | undefined {
	if (calls.length === 0 || calls.some((call) => GOAL_TOOLS.has(call.name))) return undefined;
	// A batch is a set of calls: the same calls in another order did the same thing.
	const actions: string[] = [];
	const errors: string[] = [];
	for (const call of calls) {
		const result = results.find((candidate) => candidate.id === call.id);
		const output = result ? normalizeToolOutput(result.text) : "<none>";
		const what = `${call.name}\u0000${argsText(call.args)}`;
		actions.push(`${what}\u0000${result?.isError ? 1 : 0}\u0000${output}`);
		// A failure that says nothing (grep finding no match, `test -f`) is no error text: it is
		// the same error only for the same call (different searches that find nothing are work).
		if (result?.isError) errors.push(SILENT_FAILURE.test(output) ? `${what}\u0000${output}` : output);
	}
	const action = actions.sort().reduce((hash, text) => fnv(text, hash), 0x811c9dc5);
	const error = errors.sort().reduce((hash, text) => fnv(text, hash), 0x811c9dc5);
	const failed = errors.length;
	const first = calls[0] as CallFacts;
	const label = calls.length === 1 ? callLabel(first) : `${callLabel(first)} (+${calls.length - 1} more)`;
	return { action: hex(action), error: failed === calls.length ? hex(error) : null, label, tools: true };
}

/**
 * A text-only reply as the repeat rules compare it: case, numbers (a changing step counter),
 * punctuation, markdown marks, quotes and whitespace set aside, so near-identical replies match
 * ("**Step 3:** still analysing." and "Step 4 — still analysing!").
 */
export function normalizeReply(text: string): string {
	return text
		.toLowerCase()
		.replace(/\d+(?:[.,]\d+)*/g, "#")
		.replace(/[^\p{L}\p{N}#]+/gu, " ")
		.trim();
}

/** Text-only reply: near-identical replies (see {@link normalizeReply}) have the same step. */
export function replyStep(text: string): StuckStep {
	return {
		action: `t${hex(fnv(normalizeReply(text)))}`,
		error: null,
		label: oneLine(text, MAX_LABEL),
		tools: false,
	};
}

/** Shapes of a persisted step's fingerprints (see {@link toolStep} and {@link replyStep}). */
const ACTION = /^t?[0-9a-f]{8}$/;
const ERROR = /^[0-9a-f]{8}$/;

/**
 * Reads persisted recent steps (a state entry from a session file is untrusted): the last
 * `window` steps whose fingerprints have the shapes pi-goal writes, labels re-bounded to one line.
 * Undefined when anything is malformed: the detector then starts afresh (the response limit holds).
 */
export function readStuckSteps(value: unknown, window: number): StuckStep[] | undefined {
	try {
		return readStepsUnsafe(value, window);
	} catch {
		return undefined; // a hostile getter or proxy
	}
}

function readStepsUnsafe(value: unknown, window: number): StuckStep[] | undefined {
	if (!Array.isArray(value)) return undefined;
	const steps: StuckStep[] = [];
	for (const item of value.slice(-window) as unknown[]) {
		if (typeof item !== "object" || item === null) return undefined;
		const { action, error, label, tools } = item as Record<string, unknown>;
		if (typeof action !== "string" || !ACTION.test(action)) return undefined;
		if (!(error === null || (typeof error === "string" && ERROR.test(error)))) return undefined;
		if (typeof label !== "string" || label.length > 4 * MAX_LABEL || typeof tools !== "boolean")
			return undefined;
		steps.push({ action, error, label: oneLine(label, 2 * MAX_LABEL), tools });
	}
	return steps;
}
