/**
 * What a published doc names that its reader cannot follow: internal planning documents, links
 * to files its reader does not have, anchors that no heading makes, and test files or repository
 * docs it mentions by name that do not exist. Used by docs-links.test.ts; pure apart from the
 * `opens` callback that says whether a path exists where the doc is read.
 */
import { basename, dirname, join, normalize } from "node:path";

/** Names of internal planning documents and references a reader of a published doc cannot follow. */
export const INTERNAL: readonly { readonly what: string; readonly pattern: RegExp }[] = [
	{ what: "a seed file", pattern: /(?<![-\w])seeds?\b[\s/#_-]*\d+|\bseeds\//i },
	{ what: "DESIGN.md", pattern: /\bDESIGN\.md\b|\bDESIGN\s*§/ },
	{ what: "pi-host-api.md", pattern: /\bpi-host-api(?:\.md)?\b/ },
	{ what: "STYLE.md", pattern: /\bSTYLE\.md\b/ },
	{ what: "an issue number", pattern: /\bissues?\s*#?\d+|(?<![\w/&#])#\d{1,4}\b/i },
	{ what: "the shared planning folder", pattern: /\.\.\/shared\b|\/work\/shared\b/ },
];

/** Where a path is read: undefined when it opens, else why not; `markdown` for anchors. */
export type Opens = (path: string) => { readonly missing?: string; readonly markdown?: string };

/** Markdown without fenced blocks; `spans: false` also drops inline code. */
function prose(markdown: string, spans: boolean): string {
	const text = markdown.replace(/```[\s\S]*?```/g, "");
	return spans ? text : text.replace(/`[^`\n]*`/g, "");
}

/** Markdown link targets (inline and reference definitions), without titles. */
export function linkTargets(markdown: string): string[] {
	const text = prose(markdown, false);
	const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");
	const defined = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
		(m) => m[1] ?? "",
	);
	return [...inline, ...defined];
}

/** The anchors GitHub (and npm) make from a document's headings. */
export function headingAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const match of prose(markdown, true).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const text = (match[1] ?? "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/`/g, "");
		const slug = text
			.toLowerCase()
			.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
			.replace(/ /g, "-");
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	return anchors;
}

/** Test files (`name.test.ts`) and repository docs (`docs/name.md`) a doc mentions, links or not. */
export function mentionedFiles(markdown: string): { tests: string[]; docs: string[] } {
	const text = prose(markdown, true);
	// Not after a word character, `*` or `.`: a glob such as `*.unit.test.ts` names a kind of file, not one file.
	const tests = [...text.matchAll(/(?<![\w*.])[\w./-]*[\w-]\.test\.ts\b/g)].map((m) => m[0]);
	const docs = [...text.matchAll(/(?<![\w/.-])docs\/[\w.-]+\.md\b/g)].map((m) => m[0]);
	return { tests: [...new Set(tests)], docs: [...new Set(docs)] };
}

/** Everything `markdown` (read as `file`) names that its reader cannot follow. */
export function docProblems(
	file: string,
	markdown: string,
	opens: Opens,
	repository: {
		readonly root: string;
		readonly testFiles: ReadonlySet<string>;
		readonly exists: (path: string) => boolean;
	},
): string[] {
	const found: string[] = [];
	for (const { what, pattern } of INTERNAL) {
		for (const match of markdown.matchAll(new RegExp(pattern.source, `${pattern.flags}g`)))
			found.push(`names ${what}: "${match[0]}"`);
	}
	for (const target of linkTargets(markdown)) {
		if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
		const [path = "", anchor] = decodeURIComponent(target.replace(/\?.*$/, "")).split("#", 2);
		const opened = path === "" ? { markdown } : opens(normalize(join(dirname(file), path)));
		if (opened.missing) found.push(`links ${target}: ${opened.missing}`);
		else if (anchor && opened.markdown !== undefined && !headingAnchors(opened.markdown).has(anchor))
			found.push(`links ${target}: no heading makes #${anchor}`);
	}
	const mentioned = mentionedFiles(markdown);
	for (const test of mentioned.tests)
		if (!repository.testFiles.has(basename(test)))
			found.push(`mentions ${test}: no such test file in the repository`);
	for (const doc of mentioned.docs)
		if (!repository.exists(join(repository.root, doc))) found.push(`mentions ${doc}: not in the repository`);
	return found;
}
