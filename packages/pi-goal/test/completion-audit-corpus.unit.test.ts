/**
 * Audit corpus (issue 15 audit): 30 finished and 12 unfinished summaries the implementers did not
 * see, written as models write them (markdown lists, tables, "42/42", quoted error strings, history
 * of a failure that is now fixed). A finished summary must never be asked about.
 */
import { describe, expect, it } from "vitest";
import { decideCompletion, unfinishedAdmission } from "../src/core/completion.js";

export const AUDIT_FINISHED: readonly string[] = [
	"## Summary\n- Added `--dry-run` flag\n- Updated docs\n- All tests pass (42/42)",
	"- Fixed the flaky retry test\n- No TODOs remain\n- `pnpm lint` clean",
	"Previously failing test `auth.spec.ts > refresh` now passes. Root cause: stale token cache.",
	"Applied the 3 pending migrations (`prisma migrate deploy`); `prisma migrate status` reports the database is up to date.",
	"**Done.** The remaining work items from the issue are all complete:\n1. pagination ✅\n2. sorting ✅\n3. filters ✅",
	"I have verified everything: typecheck ✓, unit tests ✓ (118 passed), e2e ✓.",
	"The tests that had not been run in CI before (integration/) are now wired in and pass.",
	"Nothing remains to be done; all acceptance criteria are met and verified by tests.",
	"There is no outstanding work: the feature is implemented, documented and tested.",
	"Remaining TODOs: none. Ran `rg TODO src` → no matches.",
	"Fixed the bug where the build was still failing on Windows (path separators). CI on windows-latest is green now.",
	"The previously stubbed `fetchUser` is now a real implementation against the REST API; 5 tests cover it.",
	"The function that was partially implemented is now fully implemented and covered by tests.",
	"Resolved the issue where jobs stayed pending forever: the worker now acks messages. Verified 1000 jobs processed.",
	"Implemented the last remaining step (deploy script). Everything is done; `./deploy.sh --check` passes.",
	"Wrote the migration; it was not yet applied in staging at the start, so I applied it and confirmed the new column exists.",
	"All done ✅\n\n| check | result |\n|---|---|\n| tests | 64 passed |\n| lint | 0 errors |",
	"I could not reproduce the original crash after the fix, and the new regression test that crashed before passes now.",
	"Tests were still failing after my first attempt, so I fixed the fixture too; now all 212 tests pass.",
	"The checks that were previously red are green: lint, types, unit, e2e.",
	"Completed: replaced the placeholder logo with the real SVG; verified it renders in light and dark mode.",
	"Everything the objective asked for is implemented. I double-checked there are no open items left in TODO.md (file removed).",
	"Implemented caching. Before: 840ms p95; after: 95ms p95. Tests: 77 passing, 0 failing, 0 pending.",
	"Finished: the half-written `export.ts` module is complete, with CSV and JSON output both tested.",
	"The work in progress branch was merged and deleted; main builds and tests pass.",
	"Fixed the 'not yet implemented' panic in `Parser::peek` by implementing it; cargo test passes.",
	"Step 1 (schema), step 2 (API), step 3 (UI) — all done and verified with the e2e test `create-item.spec.ts`.",
	"Verified: `npm test` → 42 passing (0 failing). The 2 tests I had left skipped are now enabled and pass.",
	"Addressed review: renamed variables, removed dead code, added tests. CI passes; no open review threads remain.",
	"The suite is no longer failing; it was still red earlier because of a missing env var, which I added to .env.test.",
];
export const AUDIT_UNFINISHED: readonly string[] = [
	"- Implemented the parser\n- TODO: error recovery\n- Tests: not written",
	"Done with the backend. The frontend part is left for a follow-up.",
	"Implemented most of it; 3 tests are failing and I'm not sure why.",
	"I wasn't able to finish the migration because the DB credentials are missing.",
	"The API works, but the UI still needs work.",
	"Partially done: auth works, password reset doesn't.",
	"Completed the first two steps; steps 3-5 are pending.",
	"I couldn't get the e2e tests to pass; the unit tests pass.",
	"Good progress: the core is implemented. Next steps: add tests and docs.",
	"The build passes but 2 tests fail (timeouts in CI).",
	"Implemented the endpoint. I did not write tests for it.",
	"The export is implemented except for the PDF format, which I skipped.",
];
describe("completion audit corpus", () => {
	it("goal_complete never asks about a finished summary that negates, quotes or narrates unfinished words (30 of 30 accepted)", () => {
		expect(AUDIT_FINISHED.length).toBe(30);
		expect(AUDIT_FINISHED.filter((summary) => unfinishedAdmission(summary) !== undefined)).toEqual([]);
	});

	it("each finished audit summary reads as English, so goal_complete accepts it at once (30 of 30)", () => {
		const asked = AUDIT_FINISHED.filter(
			(summary) => !decideCompletion(summary, "g-1", new Set(), { toolWork: true }).accept,
		);
		expect(asked).toEqual([]);
	});

	it("goal_complete asks about plain admissions of unfinished work in markdown lists and short clauses (12 of 12 asked)", () => {
		expect(AUDIT_UNFINISHED.length).toBe(12);
		expect(AUDIT_UNFINISHED.filter((summary) => unfinishedAdmission(summary) === undefined)).toEqual([]);
	});
});
