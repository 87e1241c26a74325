/**
 * Purity checks for a package's core: which modules a set of entry files loads at runtime,
 * following relative imports, and which non-relative runtime imports they make. Replaces
 * hand-written file lists: a new helper module a core file starts importing is checked too.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** A runtime import a checked module is not allowed to make. */
export interface ImportViolation {
	/** The module that imports it (relative to the working directory of the test). */
	readonly file: string;
	/** The import specifier, e.g. `@earendil-works/pi-coding-agent` or `node:fs`. */
	readonly specifier: string;
	/** Entry file first, then each relative import down to `file`. */
	readonly chain: readonly string[];
}

/** What {@link checkPureImports} found. */
export interface PurityReport {
	/** Every module reached from the entries (absolute paths). */
	readonly files: readonly string[];
	/** Forbidden runtime imports, in discovery order. */
	readonly violations: readonly ImportViolation[];
}

/** Options of {@link checkPureImports}. */
export interface PurityOptions {
	/** Non-relative runtime specifiers that are allowed (default: none, so even `node:` built-ins count). */
	readonly allow?: (specifier: string) => boolean;
}

/** Comments are stripped first so an example in a doc comment is not taken for an import. */
function stripComments(source: string): string {
	return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/**
 * The runtime import specifiers of one module: `import … from`, side-effect `import "…"`,
 * `export … from` and `import("…")`; `import type` and `export type` are erased and skipped.
 */
export function runtimeImports(source: string): string[] {
	const code = stripComments(source);
	const specifiers: string[] = [];
	for (const match of code.matchAll(
		/^\s*(?:import|export)\s+(type\s+)?[\w\s{},*$]*?\bfrom\s+["']([^"']+)["']/gm,
	)) {
		if (!match[1] && match[2]) specifiers.push(match[2]);
	}
	for (const match of code.matchAll(/^\s*import\s+["']([^"']+)["']/gm))
		if (match[1]) specifiers.push(match[1]);
	for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g))
		if (match[1]) specifiers.push(match[1]);
	return specifiers;
}

function resolveRelative(from: string, specifier: string): string | undefined {
	const base = resolve(dirname(from), specifier);
	const candidates = [base, base.replace(/\.(m?js)$/, ".ts"), `${base}.ts`, resolve(base, "index.ts")];
	return candidates.find((candidate) => candidate.endsWith(".ts") && existsSync(candidate));
}

/**
 * Follows the relative runtime imports of `entries` (absolute paths of `.ts` files) and reports
 * every non-relative runtime import that `allow` does not accept. An unresolvable relative import
 * is a violation too (the check must not silently stop).
 */
export function checkPureImports(entries: readonly string[], options: PurityOptions = {}): PurityReport {
	const allow = options.allow ?? (() => false);
	const seen = new Set<string>();
	const violations: ImportViolation[] = [];
	const queue: { file: string; chain: string[] }[] = entries.map((file) => ({ file, chain: [file] }));
	while (queue.length > 0) {
		const next = queue.shift();
		if (!next || seen.has(next.file)) continue;
		seen.add(next.file);
		const shown = next.chain.map((file) => relative(process.cwd(), file));
		for (const specifier of runtimeImports(readFileSync(next.file, "utf8"))) {
			if (!specifier.startsWith(".")) {
				if (!allow(specifier)) violations.push({ file: shown.at(-1) ?? "", specifier, chain: shown });
				continue;
			}
			const target = resolveRelative(next.file, specifier);
			if (target) queue.push({ file: target, chain: [...next.chain, target] });
			else violations.push({ file: shown.at(-1) ?? "", specifier, chain: shown });
		}
	}
	return { files: [...seen], violations };
}
