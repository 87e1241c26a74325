/**
 * What users read says a goal's state in words, as Pi shows it ("stopped: the provider's usage
 * limit was reached", `goal: usage limited`), never as the stored identifier (`usage_limited`,
 * `automatic-turns`). The READMEs and the TUI tour are users' pages; only the two sections written
 * for programs keep the wire names: a tool's parameters (what the model sends) and the managed-run
 * protocol (what a runner receives).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Goal states and pause reasons as stored, and the wait parameter's field name. */
const IDENTIFIERS =
	/\b(budget_limited|usage_limited|automatic-turns|workflow-busy|helpers-unavailable|resume_after_ms|pauseReason)\b/g;

/** Sections written for programs, where the wire names are the point. */
const FOR_PROGRAMS = /^## (Tools|Managed-run protocol)\b/;

/** The text of a Markdown page without the sections written for programs. */
export function usersText(markdown: string): string {
	const kept: string[] = [];
	let skipping = false;
	for (const line of markdown.split("\n")) {
		if (/^## /.test(line)) skipping = FOR_PROGRAMS.test(line);
		if (!skipping) kept.push(line);
	}
	return kept.join("\n");
}

const PAGES = [
	"README.md",
	"packages/pi-goal/README.md",
	"packages/pi-reset/README.md",
	"packages/pi-jscpd/README.md",
	"docs/tui-tour.md",
];

describe("users' pages name goal states in words", () => {
	it.each(PAGES)(
		"%s names no stored state, pause reason or field name outside its sections for programs",
		(page) => {
			const text = usersText(readFileSync(join(repoRoot, page), "utf8"));
			expect([...text.matchAll(IDENTIFIERS)].map((match) => match[0])).toEqual([]);
		},
	);

	it("the check sees an identifier in a users' section and skips the sections for programs", () => {
		const page = [
			"## Settings",
			"Turning it off stops the goal as `usage_limited`.",
			"## Tools",
			"| `goal_wait` | `goal_id`, `reason`, `resume_after_ms?` |",
			"## Managed-run protocol (opt-in)",
			"terminal states: `budget_limited`",
			"## Footer",
			"`goal: paused (automatic-turns)`",
		].join("\n");
		expect([...usersText(page).matchAll(IDENTIFIERS)].map((match) => match[0])).toEqual([
			"usage_limited",
			"automatic-turns",
		]);
	});
});
