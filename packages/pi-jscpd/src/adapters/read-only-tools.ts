/**
 * Which tools change no files (so they need not wait for the session's first file listing): Pi's
 * read-only built-ins (only while Pi's own tool has the name: an extension may register a tool named
 * \`read\` that writes), pi-jscpd's own tool, and any tool registered with the MCP-style annotation
 * \`annotations: { readOnlyHint: true }\` (read through \`pi.getAllTools()\`; Pi 1.3.0 and later). Every
 * other tool, including one Pi does not list, may have written files: it is treated like bash.
 * Nothing here names another extension's tools; an extension opts in by annotating its tool.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** Pi's built-in tools that only read. */
const BUILT_IN_READ_ONLY: ReadonlySet<string> = new Set(["read", "grep", "find", "ls"]);

/**
 * A lookup \`(toolName) => readOnly\`. Annotations and sources are read once per tool name not seen before
 * (one \`getAllTools()\` call), so the hot \`tool_result\` handler stays O(1) for known tools.
 */
export function readOnlyTools(pi: Pick<ExtensionAPI, "getAllTools">, own: string): (name: string) => boolean {
	const known = new Map<string, boolean>();
	const refresh = () => {
		try {
			for (const tool of pi.getAllTools())
				known.set(
					tool.name,
					tool.annotations?.readOnlyHint === true ||
						(BUILT_IN_READ_ONLY.has(tool.name) && tool.sourceInfo?.source === "builtin"),
				);
		} catch {
			// A stale runtime: unknown tools stay conservative.
		}
	};
	return (name) => {
		if (name === own) return true;
		let readOnly = known.get(name);
		if (readOnly === undefined) {
			refresh();
			readOnly = known.get(name) ?? false;
			known.set(name, readOnly);
		}
		return readOnly;
	};
}
