/**
 * Patch keys (pure): what a commit changes, without where. A rebase, `pull --rebase` or cherry-pick
 * replays a commit under a new id; its patch stays the same but for the blob ids on `index` lines
 * and the line numbers on hunk headers, which the key leaves out (as `git patch-id` does). Two
 * commits with the same key make the same change.
 */
import { createHash } from "node:crypto";

/** Splits `git show --format=%x00%H -p` output into commit → patch key; commits without a patch (merges) have none. */
export function patchKeys(output: string): Map<string, string> {
	const keys = new Map<string, string>();
	for (const record of output.split("\0")) {
		const newline = record.indexOf("\n");
		const sha = (newline < 0 ? record : record.slice(0, newline)).trim();
		if (!/^[0-9a-f]{40,64}$/.test(sha)) continue;
		const lines = record
			.slice(newline + 1)
			.split("\n")
			.filter((line) => line !== "" && !line.startsWith("index "))
			.map((line) => (line.startsWith("@@ ") ? "@@" : line));
		if (lines.length > 0) keys.set(sha, createHash("sha1").update(lines.join("\n")).digest("hex"));
	}
	return keys;
}

/** The `candidates` whose patch key equals the key of one of `own` (pure). */
export function samePatchAs(
	keys: ReadonlyMap<string, string>,
	candidates: readonly string[],
	own: readonly string[],
): string[] {
	const ownKeys = new Set(own.map((sha) => keys.get(sha)).filter((key) => key !== undefined));
	return candidates.filter((sha) => {
		const key = keys.get(sha);
		return key !== undefined && ownKeys.has(key);
	});
}
