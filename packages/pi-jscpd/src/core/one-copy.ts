/**
 * One copy is one finding (pure, issue 31): of the candidates jscpd reports for one new copy (once
 * per kind it matches, once per alike function, in fragments around an edit), keep the one that
 * names the copy best, and never name one copy as the new side of two findings.
 */
import { type CloneGroup, type CloneLocation, compareGroups } from "./report.js";

/** Exact before renamed before similar; a closer near-copy before a looser one. */
export function strength(group: CloneGroup): number {
	if (group.kind === undefined || group.kind === "exact") return 3;
	return group.kind === "renamed" ? 2 : (group.similarity ?? 0);
}

/** Whether `a` lies mostly (more than half its lines) inside `b`, in the same file. */
export function overlapsMostly(a: CloneLocation, b: CloneLocation): boolean {
	const shared = Math.min(a.endLine, b.endLine) - Math.max(a.startLine, b.startLine) + 1;
	return a.path === b.path && shared * 2 > a.endLine - a.startLine + 1;
}

/**
 * One copy is one finding: jscpd reports a new copy once per kind it matches (an exact copy of a
 * function is also a renamed copy of that function's old renamed copy, and a near-copy of its old
 * near-copies), and an AST pair once per alike function (a renamed copy of `log.ts` is also one of
 * `log-variant.ts`, which the session wrote earlier). A candidate whose new locations all lie
 * mostly inside a better candidate's new locations is left out. Better: the stronger kind; at the
 * same kind, the one naming existing code (a side in a file this session did not change), then
 * the deterministic group order. A copy edited in its middle comes as two or more exact fragments
 * and one near-copy of the whole function: the near-copy spans the fragments of the same two files
 * ({@link spannedFragments}) and is the one finding, since no fragment names the whole copy.
 */
export function strongestPerCopy<T extends { group: CloneGroup; fresh: CloneLocation[] }>(
	candidates: readonly T[],
	changed: ReadonlySet<string>,
): T[] {
	const existing = (group: CloneGroup) => group.locations.some((loc) => !changed.has(loc.path));
	const better = (a: T, b: T) =>
		strength(a.group) - strength(b.group) ||
		Number(existing(a.group)) - Number(existing(b.group)) ||
		compareGroups(b.group, a.group);
	const byPath = new Map<string, { loc: CloneLocation; candidate: T }[]>();
	for (const candidate of candidates) {
		for (const loc of candidate.fresh) {
			const list = byPath.get(loc.path) ?? [];
			list.push({ loc, candidate });
			byPath.set(loc.path, list);
		}
	}
	const spanned = spannedFragments(candidates, byPath, better);
	return candidates.filter(
		(candidate) =>
			!spanned.has(candidate) &&
			!candidate.fresh.every((loc) =>
				byPath
					.get(loc.path)
					?.some(
						(other) =>
							other.candidate !== candidate &&
							!spanned.has(other.candidate) &&
							better(other.candidate, candidate) > 0 &&
							overlapsMostly(loc, other.loc),
					),
			),
	);
}

/** The side of a group paired with its location `loc`. */
function pairedWith(group: CloneGroup, loc: CloneLocation): CloneLocation | undefined {
	return group.locations[0] === loc ? group.locations[1] : group.locations[0];
}

/**
 * The better candidates that are fragments of one weaker candidate's copy: two or more of them lie
 * mostly inside its new location and pair with code mostly inside the code it pairs with (the verbatim parts
 * around an edited statement). That weaker candidate names the whole copy; the fragments do not.
 */
function spannedFragments<T extends { group: CloneGroup; fresh: CloneLocation[] }>(
	candidates: readonly T[],
	byPath: ReadonlyMap<string, readonly { loc: CloneLocation; candidate: T }[]>,
	better: (a: T, b: T) => number,
): Set<T> {
	const spanned = new Set<T>();
	for (const candidate of candidates) {
		for (const loc of candidate.fresh) {
			const partner = pairedWith(candidate.group, loc);
			// On both sides: a fragment copied from elsewhere in the partner file is a copy of its own.
			const fragments = (byPath.get(loc.path) ?? []).filter(
				(other) =>
					other.candidate !== candidate &&
					better(other.candidate, candidate) > 0 &&
					partner !== undefined &&
					overlapsMostly(pairedWith(other.candidate.group, other.loc) ?? loc, partner) &&
					overlapsMostly(other.loc, loc) &&
					other.loc.endLine - other.loc.startLine < loc.endLine - loc.startLine,
			);
			if (fragments.length >= 2) for (const fragment of fragments) spanned.add(fragment.candidate);
		}
	}
	return spanned;
}

/**
 * No copy is named twice: two copies of existing code made at once (`cp m a && cp m z`) come from
 * jscpd as `a ≈ m` and `a ≈ z` (it pairs each copy with one other), so `a` would be the new side
 * of both and `z` never named as the copy it is. An exact pair of two new copies one of which is
 * an exact copy of existing code is a copy of that code too: it is told as the other copy ≈ the
 * existing code.
 */
export function namedOnce<T extends { group: CloneGroup; fresh: CloneLocation[] }>(
	kept: readonly T[],
	changed: ReadonlySet<string>,
): { group: CloneGroup; fresh: CloneLocation[] }[] {
	const exact = (group: CloneGroup) => strength(group) === 3;
	const copiesOfExisting = kept.filter(
		(candidate) => exact(candidate.group) && candidate.group.locations.some((loc) => !changed.has(loc.path)),
	);
	return kept.map((candidate) => {
		const [a, b] = candidate.group.locations;
		if (!a || !b || !exact(candidate.group) || candidate.fresh.length !== 2) return candidate;
		for (const [told, other] of [
			[a, b],
			[b, a],
		] as const) {
			const source = copiesOfExisting.find((o) => o.fresh.some((loc) => overlapsMostly(loc, told)));
			const existing = source?.group.locations.find((loc) => !changed.has(loc.path));
			if (existing && !copiesOfExisting.some((o) => o.fresh.some((loc) => overlapsMostly(loc, other))))
				return { group: { ...candidate.group, locations: [other, existing] }, fresh: [other] };
		}
		return candidate;
	});
}

/** Most lines between two verbatim parts of one edited copy (a changed statement or two). */
const MAX_EDIT_GAP = 3;

/** The location `loc` extended to end at `endLine`. */
const through = (loc: CloneLocation, endLine: number): CloneLocation => ({
	...loc,
	endLine: Math.max(loc.endLine, endLine),
});

/**
 * A copy edited in its middle, where no near-copy names it whole (languages other than
 * JavaScript/TypeScript, or a session checking exact copies only), comes from jscpd as exact
 * fragments of the same two files, one after the other on both sides: they are one finding, over
 * both ranges, whose identity covers every fragment's content (also when both files are new).
 */
export function joinedFragments<T extends { group: CloneGroup; fresh: CloneLocation[] }>(
	kept: readonly T[],
): T[] {
	const chains = new Map<string, { candidate: T; fresh: CloneLocation; partner: CloneLocation }[]>();
	for (const candidate of kept) {
		// One new side: it, then the code it copies. Both new: in path order.
		const [a, b] = candidate.group.locations;
		const both = candidate.fresh.length === 2 && a && b;
		const fresh = both ? (a.path < b.path ? a : b) : candidate.fresh[0];
		const partner = fresh && pairedWith(candidate.group, fresh);
		if (!fresh || !partner || candidate.fresh.length > 2 || strength(candidate.group) !== 3) continue;
		if (fresh.path === partner.path) continue;
		if ((fresh.copies ?? 1) > 1 || (partner.copies ?? 1) > 1) continue;
		const key = `${fresh.path}\0${partner.path}`;
		chains.set(key, [...(chains.get(key) ?? []), { candidate, fresh, partner }]);
	}
	const replaced = new Map<T, T | undefined>();
	for (const chain of chains.values()) {
		if (chain.length < 2) continue;
		chain.sort((a, b) => a.fresh.startLine - b.fresh.startLine);
		let head = chain[0] as (typeof chain)[number];
		let fresh = head.fresh;
		let partner = head.partner;
		let group = head.candidate.group;
		for (const next of chain.slice(1)) {
			const follows = (a: CloneLocation, b: CloneLocation) =>
				b.startLine > a.startLine && b.startLine - a.endLine <= MAX_EDIT_GAP + 1;
			if (follows(fresh, next.fresh) && follows(partner, next.partner)) {
				fresh = through(fresh, next.fresh.endLine);
				partner = through(partner, next.partner.endLine);
				group = joined(group, next.candidate.group, fresh, partner);
				replaced.set(next.candidate, undefined);
				const newSides = head.candidate.fresh.length === 2 ? [fresh, partner] : [fresh];
				replaced.set(head.candidate, { ...head.candidate, group, fresh: newSides });
			} else {
				head = next;
				({ fresh, partner, group } = {
					fresh: next.fresh,
					partner: next.partner,
					group: next.candidate.group,
				});
			}
		}
	}
	return kept.flatMap((candidate) => {
		if (!replaced.has(candidate)) return [candidate];
		const joinedCandidate = replaced.get(candidate);
		return joinedCandidate ? [joinedCandidate] : [];
	});
}

/** `head` grown by the fragment `next`: its locations span both, its content is both contents. */
function joined(
	head: CloneGroup,
	next: CloneGroup,
	fresh: CloneLocation,
	partner: CloneLocation,
): CloneGroup {
	const locations = head.locations.map((loc) => (loc.path === fresh.path ? fresh : partner));
	return {
		...head,
		lines: fresh.endLine - fresh.startLine + 1,
		tokens: head.tokens + next.tokens,
		hashes: [...head.hashes, ...next.hashes],
		locations: [locations[0] as CloneLocation, locations[1] as CloneLocation],
	};
}
