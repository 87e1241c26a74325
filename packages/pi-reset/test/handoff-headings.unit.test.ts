/**
 * The boot keeps "done" and "next" apart for headings as models write them: "Next steps:",
 * "Remaining work:", "Files changed:", "## Next steps" (markdown, no colon). A next step must never
 * land under the "do not redo it" heading.
 */
import { describe, expect, it } from "vitest";
import { bootText } from "../src/core/texts.js";

const DONE = "Done (finished and verified as stated; do not redo it):";

function doneBlock(handoff: string): string {
	const boot = bootText({
		windowId: "w1-x",
		cause: "new_context",
		handoff,
		userRequest: undefined,
		kept: "nothing",
	});
	const start = boot.indexOf(DONE);
	expect(start).toBeGreaterThan(0);
	const rest = boot.slice(start + DONE.length);
	const end = rest.search(/\n(Remaining:|Next action \(start here\):|Files that matter:|Go on from)/);
	return end < 0 ? rest : rest.slice(0, end);
}

describe("structured handoff headings as models write them", () => {
	it.each([
		[
			"Next steps:",
			"Goal: port the parser\nDone: lexer rewritten\nNext steps: port parseExpression\nFiles: a.ts",
		],
		["Remaining work:", "Goal: port the parser\nDone: lexer rewritten\nRemaining work: port parseExpression"],
		[
			"## Next steps",
			"## Goal\nport the parser\n## Done\nlexer rewritten\n## Next steps\nport parseExpression",
		],
		["Next up:", "Goal: port the parser\nDone: lexer rewritten\nNext up: port parseExpression"],
		[
			"**Next Steps:**",
			"**Goal:** port the parser\n**Done:** lexer rewritten\n**Next Steps:** port parseExpression",
		],
	])("a next step under %s never lands under the do-not-redo heading", (_label, handoff) => {
		const done = doneBlock(handoff);
		expect(done).toContain("lexer rewritten");
		expect(done).not.toContain("parseExpression");
	});

	it("a sentence that starts with a section word is not a heading", () => {
		const done = doneBlock("Goal: g\nDone: lexer\nDone with the parser tests: all 12 pass\nNext action: x");
		expect(done).toContain("Done with the parser tests: all 12 pass");
	});
});
