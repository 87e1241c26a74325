/**
 * Audit of the completion guard's English heuristic (issue 30): short English notes of finished
 * work are accepted at once; plain English admissions phrased without the listed idioms are asked;
 * a word English shares with another language (Portuguese "as") does not make a non-English
 * admission read as English, which the English phrase list would then accept.
 */
import { describe, expect, it } from "vitest";
import { decideCompletion } from "../src/core/completion.js";

const decide = (summary: string) => decideCompletion(summary, "g-1", new Set(), { toolWork: true });

describe("completion guard: the English heuristic", () => {
	it("short English notes of finished work are accepted at once", () => {
		for (const summary of [
			"Tests green.",
			"LGTM, merged.",
			"Shipped: --json flag, docs, tests.",
			"Ready; CI green.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("terse English summaries made mostly of code (paths, identifiers, arrows, versions) are accepted at once", () => {
		for (const summary of [
			"Implemented `--json` flag (src/cli.ts) + test (test/cli.test.ts). `npm test` → 43/43 ✓",
			"Bumped deps: react 18→19, vite 5→6. Build + tests OK.",
			"src/a.ts, src/b.ts: removed dead code; tsc OK; vitest OK.",
			"Renamed getUser → fetchUser across 12 files; build OK.",
			"Refactored utils/date.ts into date/format.ts + date/parse.ts; 57/57 specs OK.",
			"`cargo test` → 88 passed ✓",
			"Fixed the save label: `保存` now shows in the Japanese build; tests pass.",
			"Added EN and DE translations; the IST offset is fixed; cites Smith et al.; tests pass.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("a non-English admission with English words or code in it is still asked about", () => {
		for (const summary of [
			"Parser implemented, aber Tests fehlen noch.",
			"Build ok, deployed, aber die Doku fehlt noch in `docs/api.md`.",
			"Parser implémenté dans src/parser.ts, mais les tests échouent encore.",
			"Parser implemented en src/parser.ts, pero todavía faltan las pruebas.",
			"Parser implemented, maar de tests falen nog.",
			"Parser implemented, но тесты ещё не написаны.",
			"Fertig bis auf die Doku, deployed.",
			"Parser terminé sauf la doc, deployed.",
			"Parser implemented, testy nadal brakuje.",
			"Parser implemented; testit puuttuu vielä.",
			"Parser implemented, nhưng test chưa viết.",
			"Implemented the parser and updated the docs; 测试还没写。",
		])
			expect(decide(summary), summary).toMatchObject({ accept: false });
	});

	it("a Portuguese admission is not read as English because of the article 'as'", () => {
		const summary =
			"Implementei as alterações principais, mas ainda faltam os testes de integração e as migrações.";
		expect(decide(summary).accept).toBe(false);
	});

	it("plain English admissions (still broken, not done, remains unimplemented, skipped, tests fail) are asked", () => {
		for (const summary of [
			"Most of it works, but the export path is still broken.",
			"Implemented parsing; the CLI wiring is not done.",
			"I implemented A and B. C remains unimplemented.",
			"The flag works but I skipped the docs.",
			"Tests fail on Windows; everything else done.",
		])
			expect(decide(summary).accept, summary).toBe(false);
	});

	it("a plan or a promise of work to come, after some tool work (a read), is asked: it is not finished work", () => {
		for (const summary of [
			"Plan: 1) add the --json flag 2) add tests. I will implement this now.",
			"I read the CLI entry point. I will add the --json flag and a test next.",
			"Looked at the code; I'll implement the parser change now.",
		])
			expect(decide(summary).accept, summary).toBe(false);
	});

	it("every phrasing of a plan or a promise of work to come is asked (let me, the plan is, I need to, I plan to, will, going to, to do)", () => {
		for (const summary of [
			"Here's my plan: 1) add the flag 2) write a test 3) update docs.",
			"Let me implement the --json flag now.",
			"Let me now add the test for the parser.",
			"The plan is to add a --json flag and a test.",
			"I need to add the --json flag and a test.",
			"I plan to add the --json flag next.",
			"Will implement the --json flag and its test next.",
			"Going to add the flag, then a test.",
			"To do: add the flag; write a test.",
			"I am about to implement the flag.",
			"Proposed approach: add a --json flag in src/cli.ts and a test.",
		])
			expect(decide(summary), summary).toMatchObject({ accept: false });
	});

	it("finished work that names a plan, a need or what the user may do next is accepted at once", () => {
		for (const summary of [
			"Implemented the flag as planned; the plan was: add flag, add test. Both done, tests pass.",
			"Let me know if you want anything else: the flag is added and tested.",
			"Added the flag. I needed to add a test helper too; all tests pass.",
			"Done as the plan described: the flag, its test and the docs; npm test passes.",
			"Flag added and tested; there is nothing else I need to fix.",
			"The CLI will now print JSON with --json; covered by 3 new tests.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});

	it("finished work that narrates failures or pending states with the same words is accepted at once", () => {
		for (const summary of [
			"Tests fail on main without this patch; with it they pass (12 passed).",
			"Requests that are still pending at shutdown are now drained; added a test, all tests pass.",
			"Fixed the retry: jobs which are still broken after 3 tries go to the dead-letter queue. Tests pass.",
			"The old endpoint is not implemented anymore; removed its route and docs. Tests pass.",
		])
			expect(decide(summary), summary).toEqual({ accept: true });
	});
});
