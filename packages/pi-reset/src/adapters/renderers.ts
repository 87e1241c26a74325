/**
 * Transcript renderers for pi-reset's boot and checkpoint-warning messages: a short header line and
 * a body that stays collapsed until the user expands tool output (Pi's expand key). The lines are
 * computed by the pure {@link renderLines}; the adapter only colours and wraps them.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { BOOT_MESSAGE, WARNING_MESSAGE } from "../core/window.js";

/** Which of pi-reset's messages is rendered. */
export type RenderedKind = "boot" | "warning";

/** The header and body lines of one rendered message. */
export interface RenderedLines {
	/** One short line: what happened, in which window. */
	readonly header: string;
	/** The body shown when expanded (the full text the model received). */
	readonly body: readonly string[];
	/** Whether the body is hidden (collapsed). */
	readonly collapsed: boolean;
}

function text(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content))
		return content
			.map((part) => (part && typeof part === "object" && "text" in part ? String(part.text) : ""))
			.join("");
	return "";
}

function windowOf(details: unknown): string | undefined {
	if (!details || typeof details !== "object" || !("windowId" in details)) return undefined;
	const id = (details as { windowId?: unknown }).windowId;
	return typeof id === "string" ? id : undefined;
}

/** Computes the lines of a boot or warning message (pure). */
export function renderLines(
	kind: RenderedKind,
	content: unknown,
	details: unknown,
	expanded: boolean,
): RenderedLines {
	const full = text(content);
	const lines = full.split("\n");
	const windowId = windowOf(details) ?? "?";
	const left = /about (\d+) tokens/.exec(full)?.[1];
	const header =
		kind === "boot"
			? `reset · window ${windowId} starts here${full.includes("Handoff from the previous window:") ? " · with handoff" : ""}`
			: `reset · checkpoint warning · window ${windowId}${left ? ` · ~${left} tokens left` : ""}`;
	return { header, body: lines, collapsed: !expanded };
}

/** Registers both renderers. */
export function registerResetRenderers(pi: Pick<ExtensionAPI, "registerMessageRenderer">): void {
	for (const [customType, kind] of [
		[BOOT_MESSAGE, "boot"],
		[WARNING_MESSAGE, "warning"],
	] as const) {
		pi.registerMessageRenderer(customType, (message, options, theme) => {
			const lines = renderLines(kind, message.content, message.details, options.expanded);
			const head = theme.fg(kind === "boot" ? "accent" : "warning", lines.header);
			const tail = lines.collapsed
				? [theme.fg("dim", `  (${options.keyHint("app.tools.expand", "to show the full note")})`)]
				: lines.body.map((line) => theme.fg("dim", `  ${line}`));
			return new Text([head, ...tail].join("\n"), options.outputPad, 0);
		});
	}
}
