/**
 * Repeated copies in one file (F6): an identity counts a file's copies of the content, never ranks
 * them, so inserting a copy above, below or between old ones, deleting any one or reordering them
 * never moves a dismissal or acknowledgement to other content, reports a new copy exactly once and
 * an old one never (the text names the file's copies, not one old block as new).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Finding, selectFindings } from "../src/core/compare.js";
import { applyDismissal, isDismissed } from "../src/core/dismissals.js";
import { groupKey } from "../src/core/findings-store.js";
import { indexGroups } from "../src/core/identity.js";
import { MutationState } from "../src/core/mutations.js";
import { findingLine } from "../src/core/presentation.js";
import { type CloneGroup, parseReport } from "../src/core/report.js";

const ROOT = "/p";
const text = (name: string) =>
	Array.from({ length: 8 }, (_, i) => `\tconst ${name}_${i} = compute("${name}", ${i}) + offset;`).join("\n");
const C = text("copied");
const D = text("other");

/** jscpd 5.3.2's pairing: per identical text, every copy with the alphabetically first one. */
function report(files: Record<string, readonly string[]>): CloneGroup[] {
	const byText = new Map<string, { path: string; start: number }[]>();
	for (const [path, blocks] of Object.entries(files))
		blocks.forEach((block, i) => {
			if (block !== "") byText.set(block, [...(byText.get(block) ?? []), { path, start: 1 + i * 10 }]);
		});
	const duplicates: unknown[] = [];
	for (const [fragment, copies] of byText) {
		const [first, ...rest] = copies.sort((a, b) => a.path.localeCompare(b.path) || a.start - b.start);
		const side = (c: { path: string; start: number }) => ({
			name: `${ROOT}/${c.path}`,
			start: c.start,
			end: c.start + 7,
		});
		for (const other of rest)
			if (first)
				duplicates.push({
					format: "typescript",
					lines: 8,
					tokens: 80,
					fragment,
					firstFile: side(first),
					secondFile: side(other),
				});
	}
	const parsed = parseReport(ROOT, JSON.stringify({ duplicates }));
	if (!parsed.ok) throw new Error(parsed.error);
	return [...parsed.report.groups];
}

const BASELINE = { "b.ts": [C], "c.ts": [D] };
const check = (aTs: readonly string[], acknowledged: (identity: string) => boolean = () => false) =>
	selectFindings({
		groups: report({ ...BASELINE, "a.ts": aTs }),
		baseline: indexGroups(report(BASELINE)),
		changed: new Set(["a.ts"]),
		acknowledged,
		max: 20,
	});
const isC = (finding: Finding) =>
	finding.group.hashes.join() === report({ "b.ts": [C], "x.ts": [C] })[0]?.hashes.join();

type Op = { kind: "insert"; at: number } | { kind: "delete"; at: number } | { kind: "reorder"; by: number };
const ops = (m: number): fc.Arbitrary<Op> =>
	fc.oneof(
		fc.integer({ min: 0, max: m }).map((at): Op => ({ kind: "insert", at })),
		fc.integer({ min: 0, max: m - 1 }).map((at): Op => ({ kind: "delete", at })),
		fc.integer({ min: 1, max: 4 }).map((by): Op => ({ kind: "reorder", by })),
	);
/** a.ts after the operation: copies of C with blank blocks between (a reorder moves them by `by` blocks). */
function apply(m: number, op: Op): string[] {
	const copies = Array.from({ length: m }, () => C);
	if (op.kind === "insert") copies.splice(op.at, 0, C);
	if (op.kind === "delete") copies.splice(op.at, 1);
	const filler = op.kind === "reorder" ? Array.from({ length: op.by }, () => "") : [];
	return [...filler, ...copies.flatMap((copy) => [copy, ""])];
}

describe("repeated copies in one file: an identity counts copies, it does not rank them", () => {
	it("insert above/below/between, delete any one, reorder: dismissals and acknowledgements stay on their content", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 4 }).chain((m) => fc.tuple(fc.constant(m), ops(m))),
				fc.boolean(),
				([m, op], withOther) => {
					const before = Array.from({ length: m }, () => C).flatMap((copy) => [copy, ""]);
					const first = check(before).findings;
					expect(first).toHaveLength(1);
					// The user dismisses it; separately, the model was told (acknowledgement).
					const [told] = first;
					if (!told) return;
					const dismissed = applyDismissal(new Set(), {
						action: "dismiss",
						keys: [told.identity, groupKey(told.group)],
						where: "",
					});
					const acks = new MutationState();
					acks.acknowledge([{ identity: told.identity, paths: ["a.ts"] }]);
					const after = [...apply(m, op), ...(withOther ? [D] : [])];
					const open = (acknowledged: (identity: string) => boolean) =>
						check(after, acknowledged).findings.filter(
							(finding) => !isDismissed(dismissed, [finding.identity, groupKey(finding.group)]),
						);
					for (const found of [open(() => false), open((identity) => acks.isAcknowledged(identity))]) {
						// Other content is never hidden by C's dismissal or acknowledgement.
						expect(found.filter((finding) => !isC(finding))).toHaveLength(withOther ? 1 : 0);
						const copies = found.filter(isC);
						if (op.kind !== "insert") {
							expect(copies).toEqual([]);
							continue;
						}
						expect(copies).toHaveLength(1);
						const line = findingLine(copies[0] as Finding, 0);
						const starts = after.flatMap((block, i) => (block === C ? [1 + i * 10] : []));
						// Named as one more copy in a.ts with every copy's line, never as one old block's location.
						expect(line).toContain(`in a.ts (${m + 1} copies now, at lines ${starts.slice(0, 8).join(", ")}`);
						expect(line).not.toMatch(/a\.ts:\d/);
					}
				},
			),
		);
	});
});
