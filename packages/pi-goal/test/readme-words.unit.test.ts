/**
 * Issue 34 (words for people): the README tells users a goal's state in the words they see in the
 * status and the footer, never as a status identifier. Only the managed-run protocol section (for
 * extension authors, whose events carry the identifiers) may name them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const INTERNAL = /budget_limited|usage_limited|automatic-turns|workflow-busy|helpers-unavailable/g;

/** The README without the managed-run protocol section. */
function userSections(text: string): string {
	const start = text.indexOf("## Managed-run protocol");
	if (start < 0) return text;
	const end = text.indexOf("\n## ", start + 1);
	return text.slice(0, start) + (end < 0 ? "" : text.slice(end));
}

describe("README words", () => {
	it("the README names no goal status identifier outside the managed-run protocol section", () => {
		expect(README).toContain("## Managed-run protocol");
		expect(userSections(README).match(INTERNAL) ?? []).toEqual([]);
	});
});
