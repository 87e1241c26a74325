/**
 * The mechanical digest of a closing window, for resets Pi starts (threshold, overflow, manual
 * `/compact`): which files the window modified and read, the tools it ran last and its last
 * answer, all bounded. Built from session entries and Pi's compaction preparation with zero model
 * calls. Only Pi's types are imported; a test checks this module stays pure.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { MODIFIED_FILES_LABEL } from "./texts.js";
import { contentText } from "./window.js";

/** Largest digest in characters (about 1,000 tokens by Pi's chars/4 estimate); see bench `reset-digest`. */
export const DIGEST_BUDGET_CHARS = 4000;
/** Most paths listed per list. */
const MAX_FILES = 20;
/** Longest path shown. */
const MAX_PATH_CHARS = 160;
/** Most tool calls listed. */
const MAX_TOOLS = 8;
/** Longest argument summary of one tool call. */
const MAX_ARGS_CHARS = 100;
/** Longest excerpt of the last answer. */
const MAX_ANSWER_CHARS = 1200;
/** pi-reset's own tool: the reset it asked for is the boot note itself, and a cancelled one's note must not come back. */
const RESET_TOOL = "new_context";

/** File operations as Pi's compaction preparation lists them (`preparation.fileOps`). */
export interface FileLists {
	readonly read: Iterable<string>;
	readonly written: Iterable<string>;
	readonly edited: Iterable<string>;
}

function clip(text: string, max: number): string {
	return text.length <= max ? text : `${cutText(text, max - 1)}…`;
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

interface ToolCallBlock {
	readonly type: "toolCall";
	readonly id: string;
	readonly name: string;
	readonly arguments: Record<string, unknown>;
}

function toolCallsOf(entry: SessionEntry): ToolCallBlock[] {
	if (entry.type !== "message" || entry.message.role !== "assistant") return [];
	const content = entry.message.content as readonly { type: string }[];
	return content.filter((block): block is ToolCallBlock => block.type === "toolCall");
}

/** Ids of tool calls whose result in `entry` is an error. */
function failedCallId(entry: SessionEntry): string | undefined {
	if (entry.type !== "message" || entry.message.role !== "toolResult") return undefined;
	return entry.message.isError ? entry.message.toolCallId : undefined;
}

/** One spelling per path as models write them (`./src//a.ts` and `src/a.ts` are one file). */
function samePath(path: string): string {
	return path.replace(/\/{2,}/g, "/").replace(/^(\.\/)+/, "");
}

function argsSummary(args: Record<string, unknown>): string {
	const main = args.path ?? args.command ?? args.file_path;
	if (typeof main === "string") return clip(oneLine(main), MAX_ARGS_CHARS);
	try {
		return clip(oneLine(JSON.stringify(args) ?? ""), MAX_ARGS_CHARS);
	} catch {
		return "…";
	}
}

function list(paths: readonly string[]): string {
	const shown = paths.slice(0, MAX_FILES).map((path) => clip(path, MAX_PATH_CHARS));
	const more = paths.length > MAX_FILES ? ` (and ${paths.length - MAX_FILES} more)` : "";
	return `${shown.join(", ")}${more}`;
}

/**
 * The digest of the window that ends at the end of `branch` (entries after its last compaction),
 * or `undefined` when there is nothing to say. At most {@link DIGEST_BUDGET_CHARS} characters.
 */
export function windowDigest(branch: readonly SessionEntry[], fileOps?: FileLists): string | undefined {
	const modified = new Set<string>([...(fileOps?.written ?? []), ...(fileOps?.edited ?? [])].map(samePath));
	const read = new Set<string>([...(fileOps?.read ?? [])].map(samePath));
	const tools: string[] = [];
	// Results follow their calls, so walking backwards sees a failure before its call.
	const failedCalls = new Set<string>();
	const changed = new Set<string>();
	const failedChanges = new Set<string>();
	const readOk = new Set<string>();
	const failedReads = new Set<string>();
	let answer: string | undefined;
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as SessionEntry;
		if (entry.type === "compaction") break;
		const failedId = failedCallId(entry);
		if (failedId) failedCalls.add(failedId);
		for (const call of toolCallsOf(entry).reverse()) {
			if (call.name === RESET_TOOL) continue;
			const failed = failedCalls.has(call.id);
			const raw = typeof call.arguments?.path === "string" ? call.arguments.path : undefined;
			const path = raw === undefined ? undefined : samePath(raw);
			if (path && (call.name === "write" || call.name === "edit"))
				(failed ? failedChanges : changed).add(path);
			else if (path && call.name === "read") (failed ? failedReads : readOk).add(path);
			const mark = failed ? " failed" : "";
			if (tools.length < MAX_TOOLS) tools.push(`${call.name}(${argsSummary(call.arguments ?? {})})${mark}`);
		}
		if (answer === undefined && entry.type === "message" && entry.message.role === "assistant") {
			const text = contentText(entry.message.content).trim();
			if (text) answer = text;
		}
	}
	for (const path of changed) modified.add(path);
	for (const path of readOk) read.add(path);
	for (const path of failedReads) if (!readOk.has(path)) read.delete(path);
	// Pi lists every write/edit call; one that only ever failed in this window changed nothing.
	for (const path of failedChanges) if (!changed.has(path)) modified.delete(path);
	for (const path of modified) read.delete(path);
	const lines: string[] = [];
	if (modified.size > 0) lines.push(`${MODIFIED_FILES_LABEL} ${list([...modified])}`);
	if (tools.length > 0) lines.push(`Tools it ran last (newest first): ${tools.join("; ")}`);
	if (answer) {
		const excerpt = answer.length <= MAX_ANSWER_CHARS ? answer : `${cutText(answer, MAX_ANSWER_CHARS)}…`;
		lines.push("Its last answer:", excerpt);
	}
	if (read.size > 0) lines.push(`Files it read: ${list([...read])}`);
	if (lines.length === 0) return undefined;
	const text = lines.join("\n");
	return text.length <= DIGEST_BUDGET_CHARS ? text : `${cutText(text, DIGEST_BUDGET_CHARS - 1)}…`;
}
