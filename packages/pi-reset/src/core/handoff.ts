/**
 * The structured handoff: the sections the checkpoint warning asks for, and how a boot text shows
 * a handoff that uses them (done and next kept apart, so the new window neither redoes finished
 * work nor loses the next step). Pure, no Pi imports.
 */

/** The sections, in the order a boot text shows them. */
export const HANDOFF_SECTIONS = [
	{ key: "goal", label: "Goal", heading: "Goal:" },
	{ key: "done", label: "Done", heading: "Done (finished and verified as stated; do not redo it):" },
	{ key: "remaining", label: "Remaining", heading: "Remaining:" },
	{ key: "next", label: "Next action", heading: "Next action (start here):" },
	{ key: "files", label: "Files", heading: "Files that matter:" },
] as const;

type SectionKey = (typeof HANDOFF_SECTIONS)[number]["key"];

/** What the checkpoint warning asks for, in one line. */
export const HANDOFF_REQUEST =
	"Goal: the task. Done: what is finished and how you verified it. Remaining: what is left. " +
	"Next action: the exact next step. Files: the paths that matter.";

/**
 * A section name as models write it ("Next steps", "Remaining work", "Files changed", "TODO").
 * "Next" takes any short qualifier ("Next up:", "Next I will:"): a next step must never stay
 * under Done, whose heading says not to redo it.
 */
const LABEL =
	"(goal|done(?: so far)?|completed|remaining(?: work| tasks)?|todo|next(?: [\\w-]+){0,3}|files?(?: that matter| changed| touched| modified)?)";

/** A heading line: optional markdown marks, a section name, a colon, then text. */
const HEADING = new RegExp(`^[\\s#*>_-]*${LABEL}[*_\\s]*:[*_\\s]*(.*)$`, "i");

/** A markdown heading line with only a section name (`## Next steps`). */
const MARKDOWN_HEADING = new RegExp(`^\\s*#{1,6}\\s*[*_]*${LABEL}[*_\\s]*$`, "i");

/** A line that opens or closes a fenced code block (CommonMark: three or more backticks or tildes). */
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

function keyOf(word: string): SectionKey {
	const lower = word.toLowerCase();
	if (lower.startsWith("next")) return "next";
	if (lower.startsWith("file")) return "files";
	if (lower.startsWith("done") || lower === "completed") return "done";
	if (lower.startsWith("remaining") || lower === "todo") return "remaining";
	return "goal";
}

/**
 * A handoff split into its sections (`other` is the text before the first heading); `undefined`
 * when it does not use at least two of them.
 */
export function parseHandoff(
	text: string,
): { readonly sections: Partial<Record<SectionKey, string>>; readonly other: string } | undefined {
	const sections: Partial<Record<SectionKey, string[]>> = {};
	const other: string[] = [];
	let current: string[] = other;
	let fence: string | undefined;
	for (const line of text.split("\n")) {
		// Inside a fenced code block (a config, a diff, a log) no line is a heading: `next: 3` is code.
		const marker = FENCE.exec(line)?.[1];
		if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length)))
			fence = fence === undefined ? marker : undefined;
		const match = fence || marker ? null : (HEADING.exec(line) ?? MARKDOWN_HEADING.exec(line));
		if (match) {
			const key = keyOf(match[1] as string);
			current = sections[key] ?? [];
			sections[key] = current;
			if (match[2]?.trim()) current.push(match[2].trim());
		} else {
			current.push(line);
		}
	}
	const found = Object.entries(sections).filter(([, lines]) => lines.join("").trim().length > 0);
	if (found.length < 2) return undefined;
	const joined: Partial<Record<SectionKey, string>> = {};
	for (const [key, lines] of found) joined[key as SectionKey] = lines.join("\n").trim();
	return { sections: joined, other: other.join("\n").trim() };
}

/**
 * The handoff as a boot text shows it: text before the first heading first, then the sections
 * under fixed headings in a fixed order (done before and apart from the next action); an
 * unstructured handoff verbatim. `quote` treats the model's text as data.
 */
export function presentHandoff(text: string, quote: (data: string) => string): string[] {
	const parsed = parseHandoff(text);
	if (!parsed) return ["Handoff from the previous window:", quote(text)];
	const lines = ["Handoff from the previous window:"];
	// Text before the first heading comes first, as written (the user's `/compact` instructions lead there).
	if (parsed.other) lines.push(quote(parsed.other));
	for (const section of HANDOFF_SECTIONS) {
		const body = parsed.sections[section.key];
		if (body) lines.push("", section.heading, quote(body));
	}
	return lines;
}
