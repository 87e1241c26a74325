/**
 * The `new_context` tool: the model ends its context window on purpose. The tool only records the
 * request; the reset is committed at the next boundary after the whole tool batch (boundary.ts).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { bound, MAX_HANDOFF_CHARS, toolTexts } from "../core/texts.js";
import type { ResetControl } from "./control.js";

/** Tool name (DESIGN.md §3). */
export const TOOL_NAME = "new_context";

/** Details attached to every `new_context` result. */
export interface NewContextDetails {
	/** What the call did. */
	readonly status: "requested" | "already-pending" | "off";
	/** The window the request applies to. */
	readonly windowId: string;
}

/**
 * The declaration travels with every request of every session, so it says only what a model needs
 * to choose the tool (issue 20). The rest is where it is needed: the checkpoint warning asks for a
 * handoff and says what goes in it; the new window's boot text says that it starts with only the
 * handoff and the user's latest request, that the full history stays in the session file, and
 * where the rest of a handoff over the limit is; the result says the reset follows the tool batch.
 */
const DESCRIPTION = "Start a fresh context window from your handoff: task, state, next steps, key facts.";

const parameters = Type.Object({ handoff: Type.Optional(Type.String()) });

/** Normalises a handoff: trimmed, bounded, absent when empty. */
export function normaliseHandoff(raw: string | undefined): string | undefined {
	const text = raw?.trim();
	return text ? bound(text, MAX_HANDOFF_CHARS, "the tool call in the session file") : undefined;
}

/**
 * Shows pi-reset's tools (`new_context`, `context_recall`) to the model only while pi-reset is on:
 * off means off, so neither a tool nor its guideline line stays in the system prompt. Only a tool
 * pi-reset itself hid is shown again (a user who left it out of `--tools` keeps it out). Changing
 * the tool set changes the request prefix once, at the toggle; removing the guideline alone would
 * too (docs/pi-reset-lifecycle.md).
 */
export function createToolVisibility(
	pi: Pick<ExtensionAPI, "getActiveTools" | "setActiveTools">,
	names: readonly string[] = [TOOL_NAME],
) {
	const hidden = new Set<string>();
	return (enabled: boolean): void => {
		try {
			const active = pi.getActiveTools();
			if (!enabled) {
				const ours = active.filter((name) => names.includes(name));
				if (ours.length === 0) return;
				pi.setActiveTools(active.filter((name) => !names.includes(name)));
				for (const name of ours) hidden.add(name);
			} else if (hidden.size > 0) {
				const missing = [...hidden].filter((name) => !active.includes(name));
				if (missing.length > 0) pi.setActiveTools([...active, ...missing]);
				hidden.clear();
			}
		} catch {
			// Before the runtime is bound (never from events) or a stale runtime after reload.
		}
	};
}

/** Registers `new_context`. */
export function registerNewContextTool(pi: Pick<ExtensionAPI, "registerTool">, control: ResetControl): void {
	pi.registerTool({
		name: TOOL_NAME,
		label: "New context",
		// Changes no files: other extensions (pi-jscpd) need not treat it like bash.
		annotations: { readOnlyHint: true },
		description: DESCRIPTION,
		parameters,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const effect = control.dispatch(
				{ type: "request", source: "tool", handoff: normaliseHandoff(params.handoff), streaming: true },
				ctx,
			);
			const windowId = control.state.window.id;
			if (effect.type === "rejected-off") {
				return {
					content: [{ type: "text", text: toolTexts.off }],
					details: { status: "off", windowId } satisfies NewContextDetails,
				};
			}
			if (effect.type === "already-pending") {
				return {
					content: [{ type: "text", text: toolTexts.already(effect.request.windowId) }],
					details: { status: "already-pending", windowId } satisfies NewContextDetails,
					terminate: true,
				};
			}
			return {
				content: [{ type: "text", text: toolTexts.accepted(windowId) }],
				details: { status: "requested", windowId } satisfies NewContextDetails,
				terminate: true,
			};
		},
	});
}
