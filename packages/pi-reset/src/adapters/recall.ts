/**
 * The `context_recall` tool: returns a tool output hidden by masking (by the ref in its stub), or
 * searches earlier windows of this session by text. Reads the session file's entries (so it works
 * after a reload); no model call. Not a hot handler: it reads the branch once per call.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import {
	checkRef,
	MAX_RECALL_CHARS,
	RECALL_TOOL,
	type RecallAnswer,
	recallText,
	recallTexts,
	searchTexts,
	unknownRef,
} from "../core/recall.js";
import { INITIAL_WINDOW } from "../core/reducer.js";
import { bound } from "../core/texts.js";
import { contentText } from "../core/window.js";

/** Tool name (new in issue 32; not in DESIGN.md §3). */
export const RECALL_TOOL_NAME = RECALL_TOOL;

/** Travels with every request: only what a model needs to choose it. */
const DESCRIPTION = "Get hidden old output by ref, or search earlier context windows by query.";

const parameters = Type.Object({ ref: Type.Optional(Type.String()), query: Type.Optional(Type.String()) });

/** Details attached to every result. */
export interface RecallDetails {
	readonly status: "recalled" | "found" | "miss";
}

type Branch = ReturnType<ExtensionContext["sessionManager"]["getBranch"]>;

/** The entry a ref names: the entry id, or (for a stub written before the entry was indexed) a tool call id. */
function findByRef(sessionManager: ExtensionContext["sessionManager"], branch: Branch, ref: string) {
	const direct = sessionManager.getEntry(ref);
	if (direct) return direct;
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i];
		if (entry?.type === "message" && entry.message.role === "toolResult" && entry.message.toolCallId === ref)
			return entry;
	}
	return undefined;
}

/** Answers a recall by ref: a tool output as it was (bounded), or the text of a message or note. */
function byRef(ctx: ExtensionContext, ref: string): RecallAnswer {
	const refused = checkRef(ref);
	if (refused) return refused;
	const branch = ctx.sessionManager.getBranch();
	const entry = findByRef(ctx.sessionManager, branch, ref);
	if (!entry) return unknownRef(ref);
	if (entry.type === "message" && entry.message.role === "toolResult") {
		const content = entry.message.content;
		const text = contentText(content);
		if (text.length <= MAX_RECALL_CHARS) return { text, original: structuredClone(content) };
		return { text: bound(text, MAX_RECALL_CHARS) };
	}
	const found = recallTexts([entry], INITIAL_WINDOW.id)[0];
	if (!found) return unknownRef(ref);
	const window = recallTexts(branch, INITIAL_WINDOW.id).find((text) => text.ref === found.ref);
	return recallText(window ?? found);
}

/** Registers `context_recall`. */
export function registerRecallTool(pi: Pick<ExtensionAPI, "registerTool">): void {
	pi.registerTool({
		name: RECALL_TOOL_NAME,
		label: "Context recall",
		annotations: { readOnlyHint: true },
		description: DESCRIPTION,
		parameters,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const ref = typeof params.ref === "string" ? params.ref.trim() : undefined;
			const query = typeof params.query === "string" ? params.query : undefined;
			let answer: RecallAnswer;
			if (ref !== undefined && ref !== "") answer = byRef(ctx, ref);
			else if (query !== undefined)
				answer = searchTexts(recallTexts(ctx.sessionManager.getBranch(), INITIAL_WINDOW.id), query);
			else
				answer = { text: "Give ref (from a hidden-output note) or query (text to search for).", miss: true };
			const status: RecallDetails["status"] = answer.miss ? "miss" : answer.original ? "recalled" : "found";
			const content = (answer.original ?? [{ type: "text", text: answer.text }]) as {
				type: "text";
				text: string;
			}[];
			return { content, details: { status } satisfies RecallDetails };
		},
	});
}
