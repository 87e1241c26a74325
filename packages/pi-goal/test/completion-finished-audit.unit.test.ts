/**
 * Review of the widened completion guard (the other half): finished English summaries that the
 * widened rules must accept at once. A wrong question costs the user a request and their trust.
 */
import { describe, expect, it } from "vitest";
import { decideCompletion } from "../src/core/completion.js";

const decide = (summary: string) => decideCompletion(summary, "g-1", new Set(), { toolWork: true });

describe("completion guard: finished English summaries are accepted at once", () => {
	it("English naming tools, fonts and functions that are also words of another language (Jest, Noto Sans, sin, ALE, Encore, mangler) is English", () => {
		for (const summary of [
			"Migrated the test suite from Jest to Vitest; all 212 tests pass.",
			"Ran jest: 42 passed, 0 failed.",
			"Switched the body font to Noto Sans; visual snapshots updated and passing.",
			"Implemented sin, cos and tan in the math module; 30 new tests pass.",
			"Configured ALE for the repo's linters and fixed the warnings it reported.",
			"Set up Webpack Encore for the asset build; `yarn encore production` succeeds.",
			"Fixed the name mangler so reserved words are kept; terser tests pass.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("English text quoting an error message in another language is English", () => {
		for (const summary of [
			'Fixed the crash "Datei nicht gefunden: config.json" on German Windows; the loader now falls back to defaults. Tests pass.',
			"Fixed the “Файл не найден” crash on Russian Windows; tests pass.",
			"Handled «Accès refusé, le fichier est verrouillé» from the French SMB server; added a test, all tests pass.",
			"Fixed the „Zugriff verweigert, Datei ist noch gesperrt“ error when saving; tests pass.",
			"Fixed the crash on German Windows that printed\n\n> Fehler: Datei nicht gefunden, bitte später noch einmal versuchen\n\nThe loader now falls back to defaults; tests pass.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("a Next steps section of things for the user, after finished goal work, is accepted at once", () => {
		for (const summary of [
			"Added the flag and its test. All tests pass.\n\nNext steps: review and merge the PR when you are ready.",
			"Added the flag and its test. All tests pass.\n\nNext steps:\n- Review the PR\n- Cut a release",
			"Done: all tests pass. Next step: merge the PR.",
			"Implemented the exporter; 12 tests pass.\nNext steps (optional): deploy to staging and announce the flag.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("a plan, to-do or remaining line that says it is all done (Plan: done, TODO: all done, Remaining: 0) is accepted at once", () => {
		for (const summary of [
			"Plan: done. Added the flag and its test; all tests pass.",
			"Plan: completed as written; the flag, its test and the docs are in. Tests pass.",
			"TODO: all items done; `rg TODO` finds nothing.",
			"Remaining: 0 failing tests; all 212 pass.",
			"Implemented the exporter; tests pass.\nRemaining: zero open items.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("a numbered Next steps list for the user, 'Remaining TODOs: 0', 'Let me add:' as an aside and a plan for a release are accepted at once", () => {
		for (const summary of [
			"Implemented the export; all tests pass.\n\nNext steps:\n1. Review the diff\n2. Merge",
			"Done. Remaining TODOs: 0.",
			"Open items: none. Outstanding work: 0.",
			"Tested on Node 20 and 22. Let me add: the CI matrix now covers both.",
			"Fixed the bug and added a regression test; tests pass. The plan is to release it in 2.3.1 (your call).",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("CJK identifiers written as code without backticks (member access, calls) are code, not words", () => {
		for (const summary of [
			"Fixed the lookup of user.名前 in the profile page; tests pass.",
			"Implemented 合計を計算する() in src/math.ts; tests pass.",
			"Renamed 保存.handler to save.handler and fixed the café ünïcode labels; all tests pass.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("a Next steps list of goal work, and a non-English admission quoting English, are still asked", () => {
		for (const summary of [
			"Good progress: the core is implemented. Next steps: add tests and docs.",
			"Parser implemented.\nNext steps:\n- write the tests\n- update the docs",
			'Parser implemented, "all tests pass", aber die Doku fehlt noch.',
			"Plan: 1) add the flag 2) add tests. I will implement this now.",
			"TODO: write the tests and the docs.",
			"Remaining: the docs and a changelog entry.",
			"Parser implemented; 测试还没写。",
			"Implemented the export.\nNext steps:\n1. Write the tests\n2. Update the docs",
			"Remaining TODOs: 2 (error recovery, docs).",
			"Let me add the missing test now.",
			"The plan is to refactor the parser and then add tests.",
		])
			expect(decide(summary), summary).toMatchObject({ accept: false });
	});
});
