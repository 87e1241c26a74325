/**
 * The completion corpus (issue 15): realistic goal_complete summaries, written the way models
 * write them. Finished work mentions tests, failures, TODOs, bugs, incomplete or pending things
 * all the time; none of those may be asked about, let alone rejected. Summaries that admit
 * unfinished work are asked about once (goal_complete is authoritative: the next call is accepted).
 * Confusion matrix (also in docs/pi-goal-verification-map.md):
 *   finished 60 → accepted 60, asked 0;  unfinished 26 → asked 26, accepted at once 0.
 */
import { describe, expect, it } from "vitest";
import { decideCompletion, unfinishedAdmission } from "../src/core/completion.js";

/** Summaries that report finished work. */
export const FINISHED: readonly string[] = [
	"Fixed the 3 failing tests; npm test now passes.",
	"Removed every TODO comment from src/ and replaced them with the missing implementations. `pnpm test` passes (142 tests).",
	"The login that was not working is fixed: the session cookie was set without SameSite. Added a regression test; all tests pass.",
	"All 48 tests pass. The previously failing `parser.spec.ts` now passes after fixing the off-by-one in tokenize().",
	"Implemented the CSV export. Verified with `npm run test:e2e` (12 passed, 0 failed) and manually exported a sample file.",
	"Bug fixed: the race in the cache invalidation. I reproduced the failure with a stress test first (failed 7/10 runs), then it passed 100/100 after the fix.",
	"Resolved all pending migrations: ran `alembic upgrade head` successfully and the schema check reports no pending changes.",
	"The incomplete error handling in the upload route is now complete: every branch returns a typed error, covered by 6 new tests.",
	"Done. Lint, typecheck and tests are green. There are no remaining TODOs in the module.",
	"Fixed bug #412 (crash on empty input). Tests: 230 passed, 0 failed, 2 skipped (the skipped ones are platform-specific and were skipped before this change too).",
	"Converted the partially implemented settings page into a full implementation: load, validate, save and reset all work and are tested.",
	"Nothing left to do: the API returns 404 for missing users, the client shows the error, and both are covered by tests.",
	"Added retry with exponential backoff for failed requests. The flaky `network.test.ts` failure no longer reproduces in 50 runs.",
	"The README's TODO section was removed and replaced with actual usage docs; markdown lint passes.",
	"Addressed every failing check on the PR: formatting (biome), the type error in api.ts, and the broken snapshot. CI is green on commit 4f2a1c9.",
	"Implemented pagination. Edge cases verified: empty page, last page, page size 1. `go test ./...` ok.",
	"Migrated from moment to date-fns. All 17 usages replaced; no moment imports remain (`rg moment src` returns nothing). Tests pass.",
	"Fixed the memory leak: event listeners are now removed on unmount. Heap snapshot after 100 mounts is flat; the leak test passes.",
	"The build was failing on Node 18 because of a top-level await; wrapped it in an async main. `npm run build` succeeds on Node 18 and 20.",
	"Wrote unit tests for the incomplete coverage areas; coverage went from 61% to 92% and all tests pass.",
	"Handled the pending state in the order form (spinner + disabled submit). Verified in the browser and with the new component test.",
	"All TODO and FIXME markers in lib/ are resolved; grep finds none. cargo test: 88 passed.",
	"The feature flag is fully implemented and documented. Previously failing integration test `flags_e2e` passes now.",
	"Fixed: `make check` failed because of an unused import. Now `make check` passes, including the 310 unit tests.",
	"Rewrote the broken date parsing. Property-based test with 10k cases passes; the old failing examples from the issue are regression tests now.",
	"Objective met: the CLI accepts --json, prints valid JSON for all 5 subcommands (verified with jq), and the help text documents it.",
	"Closed out the remaining work from the plan: steps 4-6 done (docs, changelog, version bump). Everything in the plan is checked off.",
	"The endpoint no longer returns 500 on malformed input; it returns 400 with a message. Tests added for 4 malformed payloads; suite passes.",
	"Error: none. Fixed the typo in the config key that made the service fail to start; the service starts and the health check returns 200.",
	"Test failures were caused by a timezone assumption; tests now use UTC explicitly. 3 runs in different TZ settings all pass.",
	"Implemented the missing `delete` command. `pytest -q`: 64 passed. Manual check: deleting a non-existent item prints a clear error.",
	"Upgraded React to 19 and fixed the 11 type errors it introduced. `tsc --noEmit` is clean and the app renders; e2e suite passed.",
	"Bugs fixed: (1) null deref in getUser, (2) wrong status code on logout. Both have failing-before/passing-after tests.",
	"The flaky test was not flaky after all: it depended on test order. Isolated its fixture; it passes alone and in the full run.",
	"Removed the deprecated API and its callers. No references remain; the build and all 96 tests pass.",
	"Dockerfile builds (docker build . succeeded), the container starts, and `curl localhost:8080/health` returns ok.",
	"Added input validation. Invalid emails, empty names and too-long bios are rejected with messages; tests cover each. Nothing outstanding.",
	"Translated the remaining 40 strings to German; the i18n check reports 0 missing keys.",
	"The incomplete implementation of `merge()` now handles conflicts; the 8 conflict scenarios from the spec each have a passing test.",
	"Work complete. I ran the full test suite (npm test → 512 passing) and the linter (0 problems).",
	"Finished the refactor: split utils.ts into three modules, no behavior change; all tests pass and the bundle size is unchanged.",
	"The pending PR comments are all addressed and resolved; CI passes on the latest push.",
	"Fixed the broken link checker: it now follows redirects. Ran it on the docs: 0 broken links.",
	"Added the missing index on orders.user_id; the slow query went from 2.3s to 12ms (EXPLAIN shows an index scan). Migration tested up and down.",
	"Root cause of the failing deploy: missing env var. Added it to the manifest and the deploy succeeded; the smoke test passed.",
	"All requirements verified: (a) upload up to 10 MB — tested; (b) progress bar — tested; (c) cancel — tested. No known bugs.",
	"Cleaned up the incomplete/unused experiments directory (removed), updated imports; build and tests pass.",
	"The `TODO: handle timeout` branch is implemented: requests time out after 30 s with a clear error; a test with a fake clock covers it.",
	"No failing tests, no lint errors, no type errors. The feature matches the acceptance criteria in the issue.",
	"Fixed 2 bugs found while testing: an unescaped quote in the CSV writer and a wrong default encoding. Both covered; all tests pass.",
	"The job that was stuck in pending now runs: the queue name was misspelled. Verified the job completed in the dashboard.",
	"Implemented everything in the objective. `cargo clippy` is clean, `cargo test` passes, and the example in the README runs.",
	"Replaced the stub implementation of `sendEmail` with the real SMTP client; tested against a local MailHog instance — mail received.",
	"Previously 5 tests were skipped as incomplete; they are implemented now and pass (0 skipped).",
	"Done — the dark mode toggle persists across reloads; verified manually and with the Playwright test `theme.spec.ts` (passes).",
	"The warnings about pending promises in the test output are gone (added missing awaits). Tests pass without warnings.",
	"Made the failing `e2e/checkout` test pass by fixing the price rounding; also ran the full e2e suite: 34/34.",
	"Updated the dependency with the security bug (lodash 4.17.21). `npm audit` reports 0 vulnerabilities; tests pass.",
	"Ported the script to Python 3.12; the deprecated `imp` module is no longer used. Script runs on the sample data with identical output.",
	"Summary: implemented auth middleware, added 9 tests (all pass), updated API docs. No open issues remain for this goal.",
];

/** Summaries that admit unfinished work. */
export const UNFINISHED: readonly string[] = [
	"Implemented the parser, but I still need to add error recovery and tests.",
	"Most of the work is done; the export feature is not yet implemented.",
	"Tests have not been run yet because the database is unavailable.",
	"Remaining work: wire the settings page to the API and write docs.",
	"Two endpoints are done; three are left to implement.",
	"The migration is partially done (users table migrated, orders not).",
	"Work in progress: refactored the service layer, the controllers are next.",
	"I could not finish the integration tests within this session.",
	"The build is still failing on Windows; Linux and macOS pass.",
	"Left a TODO for the pagination edge cases.",
	"Ran out of time before updating the documentation.",
	"The email sender is still a stub; everything else works.",
	"Added the UI. We still have to connect it to the backend.",
	"Core logic done; the CLI flags are not yet wired up.",
	"Outstanding tasks: add retries, write the changelog.",
	"Feature is only partially implemented: reading works, writing doesn't.",
	"I didn't complete the i18n part; only English strings exist.",
	"3 tests still fail after my changes; the rest pass.",
	"The API has not been tested against production data.",
	"Done with the first half. The second half still needs to be written.",
	"Not done yet, but close: the last step is updating the schema.",
	"Open items: the mobile layout and accessibility review.",
	"The importer works for CSV; JSON support remains to be done.",
	"I did not get to the performance work; correctness is fixed.",
	"Left 2 TODOs in the code where the spec was unclear.",
	"The checks are still red because of a lint error I could not resolve.",
];

describe("completion corpus", () => {
	it("goal_complete never asks about or rejects a summary reporting finished work (60 of 60 accepted, 0 asked)", () => {
		expect(FINISHED.length).toBe(60);
		const asked = FINISHED.filter((summary) => unfinishedAdmission(summary) !== undefined);
		expect(asked).toEqual([]);
	});

	it("goal_complete asks once about a summary admitting unfinished work (26 of 26 asked, 0 accepted at once)", () => {
		expect(UNFINISHED.length).toBe(26);
		const missed = UNFINISHED.filter((summary) => unfinishedAdmission(summary) === undefined);
		expect(missed).toEqual([]);
	});

	it("goal_complete asks at most once per goal id and then accepts", () => {
		const asked = new Set<string>();
		expect(decideCompletion(UNFINISHED[0] ?? "", "g-1", asked)).toMatchObject({ accept: false });
		expect(decideCompletion(UNFINISHED[0] ?? "", "g-1", asked)).toEqual({ accept: true });
		// A new goal id (edit, resume) gets its own single question.
		expect(decideCompletion(UNFINISHED[1] ?? "", "g-2", asked)).toMatchObject({ accept: false });
		expect(decideCompletion(FINISHED[0] ?? "", "g-3", asked)).toEqual({ accept: true });
	});
});

describe("admissions in any language (issue 30)", () => {
	const facts = { toolWork: true };
	it("German, French, Spanish and Japanese admissions without open_items are asked about", () => {
		for (const summary of [
			"Der Parser ist fertig, aber die Tests schlagen noch fehl und die Doku fehlt noch.",
			"Die Funktion ist teilweise umgesetzt; der Export ist noch nicht implementiert.",
			"Le parseur est prêt, mais les tests échouent encore et la documentation manque.",
			"El analizador está listo, pero las pruebas todavía fallan y falta la documentación.",
			"パーサーは完成しましたが、テストはまだ失敗しています。ドキュメントも未完成です。 残り 作業 あり です",
		])
			expect(decideCompletion(summary, "g-1", new Set(), facts).accept, summary).toBe(false);
	});
	it("a short note or a summary sharing a word with English (Dutch is, French on, Polish to, German was) is asked to state its open items", () => {
		for (const summary of [
			"Noch nicht fertig.",
			"Tests schlagen noch fehl.",
			"Het is bijna klaar, maar de tests falen nog en de documentatie ontbreekt nog.",
			"On a corrigé le parseur, mais les tests échouent encore et la doc manque.",
			"To jeszcze nie działa: testy nadal nie przechodzą, brakuje dokumentacji.",
			"Parser ist fertig. Was noch fehlt: die Tests und die Doku für das Modul.",
			"解析器已完成，但测试仍然失败，文档也还没有写。",
		]) {
			const decision = decideCompletion(summary, "g-1", new Set(), facts);
			expect(decision, summary).toMatchObject({ accept: false, phrase: "open items not stated" });
			// Stating them (none open) is accepted at once.
			expect(decideCompletion(summary, "g-1", new Set(), { ...facts, openItems: [] }).accept).toBe(true);
		}
		// Short English notes are still read as English.
		for (const summary of ["Done.", "All tests pass.", "Fixed; npm test passes."])
			expect(decideCompletion(summary, "g-1", new Set(), facts).accept, summary).toBe(true);
	});
	it("open items listed in any language are asked about; an empty list is accepted", () => {
		const german = "Der Parser ist fertig und alle Tests laufen durch, die Doku ist aktualisiert.";
		expect(
			decideCompletion(german, "g-1", new Set(), { ...facts, openItems: ["Doku schreiben"] }).accept,
		).toBe(false);
		expect(decideCompletion(german, "g-1", new Set(), { ...facts, openItems: [] }).accept).toBe(true);
	});
	it("unchecked task-list items are an admission in every language", () => {
		const summary = "Erledigt:\n- [x] Parser\n- [ ] Tests schreiben";
		expect(decideCompletion(summary, "g-1", new Set(), facts).accept).toBe(false);
	});
	it("every finished English summary is still accepted at once", () => {
		for (const summary of FINISHED)
			expect(decideCompletion(summary, "g-1", new Set(), facts).accept, summary).toBe(true);
	});
	it("asked once per goal: the second call is accepted", () => {
		const asked = new Set<string>();
		const summary = "Der Parser ist fertig, aber die Tests schlagen noch fehl und die Doku fehlt noch.";
		expect(decideCompletion(summary, "g-1", asked, facts).accept).toBe(false);
		expect(decideCompletion(summary, "g-1", asked, facts).accept).toBe(true);
	});
});
