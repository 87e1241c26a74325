/**
 * Copy counts in clone identities (pure). A file can hold the same duplicated content more than
 * once. Its copies are interchangeable (line numbers shift with every edit, so "the second copy"
 * names nothing stable), so an identity carries how MANY copies it covers instead: `<digest>` for
 * one, `<digest>#<n>` for n. Acknowledging or dismissing `<digest>#<n>` covers every count up to
 * n: deleting or reordering copies never un-dismisses them, and one more copy (n + 1) is new.
 * Identities of content held once are the plain digest, as before counts existed.
 */

/** The identity covering `copies` copies of the content `base` names. */
export function withCopies(base: string, copies: number): string {
	return copies > 1 ? `${base}#${copies}` : base;
}

/** The digest and copy count of an identity (a plain identity covers one copy). */
export function splitCopies(identity: string): { readonly base: string; readonly copies: number } {
	const match = /^(.*)#([1-9]\d{0,5})$/.exec(identity);
	return match ? { base: match[1] ?? "", copies: Number(match[2]) } : { base: identity, copies: 1 };
}

/**
 * Highest copy count recorded per digest, for {@link covers}. Built once per set of recorded keys
 * (dismissals, acknowledgements), so a lookup is O(1).
 */
export function copyCounts(keys: Iterable<string>): Map<string, number> {
	const counts = new Map<string, number>();
	for (const key of keys) {
		const { base, copies } = splitCopies(key);
		counts.set(base, Math.max(copies, counts.get(base) ?? 0));
	}
	return counts;
}

/** Whether a recorded count of `identity`'s content reaches its count. */
export function covers(counts: ReadonlyMap<string, number>, identity: string): boolean {
	const { base, copies } = splitCopies(identity);
	return (counts.get(base) ?? 0) >= copies;
}
