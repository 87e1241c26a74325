/**
 * What a doc shipped in a package tarball (README.md, CHANGELOG.md) names that its reader does not
 * have: a path or a source file of the repository that is not in the tarball (`src/core/x.ts`,
 * `docs/glossary.md`, `./packages/pi-goal`, `identity.ts`), or a test file (`*.test.ts`). Links are
 * checked by docs-check.ts; this check reads the whole text, inline code and prose alike, because
 * "see docs/security.md in the repository" sends the reader just as far as a link does. Paths of
 * the user's own project (`src/orders.ts`, `.pi/pi-lifecycle/pi-goal.json`) are not the repository's
 * and pass. Pure: the caller lists the tracked and the shipped files.
 */
import { posix } from "node:path";

/** What the check compares a doc against. */
export interface ShippedDocContext {
	/** Files in the tarball, relative to its `package/` directory. */
	readonly shipped: readonly string[];
	/** Files tracked in the repository, relative to its root (`git ls-files`). */
	readonly tracked: readonly string[];
	/** The package's directory in the repository, e.g. `packages/pi-goal`. */
	readonly packageDir: string;
}

/** A bare file name counts when it has one of these extensions (source and docs, not user config). */
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|md)$/;
const TEST_FILE = /\.test\.[cm]?[jt]s$/;

/** Each path and every directory above it. */
function withParents(paths: readonly string[]): Set<string> {
	const all = new Set<string>();
	for (const path of paths) {
		const parts = path.split("/");
		for (let end = 1; end <= parts.length; end++) all.add(parts.slice(0, end).join("/"));
	}
	return all;
}

/** Path-like words of a text: runs of path characters that hold a slash or a file extension. */
export function pathWords(text: string): string[] {
	const withoutUrls = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s)>`'"]+/gi, " ");
	const words = withoutUrls.match(/[\w.@~*/-]+/g) ?? [];
	return words
		.map((word) => word.replace(/[.\-/]+$/, (tail) => (tail.endsWith("/") ? "/" : "")))
		.filter((word) => word.includes("/") || /\.[A-Za-z]\w*$/.test(word));
}

/** Everything `text` names that is in the repository but not in the tarball. */
export function shippedDocProblems(text: string, context: ShippedDocContext): string[] {
	const shipped = withParents(context.shipped);
	const tracked = withParents(context.tracked);
	const shippedNames = new Set(context.shipped.map((path) => posix.basename(path)));
	const trackedNames = new Set(context.tracked.map((path) => posix.basename(path)));
	const problems = new Set<string>();
	for (const word of pathWords(text)) {
		if (TEST_FILE.test(word)) {
			problems.add(`names a test file: "${word}"`);
			continue;
		}
		// A scoped package name, an absolute or home path, a glob: never the repository's.
		if (/^[@~/$<]/.test(word) || word.includes("*")) continue;
		const path = posix.normalize(word.replace(/\/$/, "")).replace(/^(\.\/)+/, "");
		if (path.startsWith("../")) {
			problems.add(`names a path outside the package: "${word}"`);
			continue;
		}
		if (path === "." || path.startsWith("..")) continue; // `...spread` in code, not a path
		if (path.includes("/")) {
			if (shipped.has(path)) continue;
			const inPackage = tracked.has(posix.join(context.packageDir, path));
			if (inPackage || tracked.has(path))
				problems.add(`names a repository path that is not in the tarball: "${word}"`);
		} else if (SOURCE_FILE.test(path) && trackedNames.has(path) && !shippedNames.has(path)) {
			problems.add(`names a repository file that is not in the tarball: "${word}"`);
		}
	}
	return [...problems];
}
