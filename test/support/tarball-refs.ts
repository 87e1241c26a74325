/**
 * Finds references in an unpacked package that do not resolve inside it: relative imports of every
 * shipped module (JS, declarations, TypeScript examples), bare imports the manifest does not
 * declare, and every path the manifest points at (`exports`, `main`, `types`, `pi.extensions`).
 * What `npm publish` uploads is all a consumer gets, so each of these is a broken install.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";

/** A shipped package as unpacked from its tarball (the `package/` directory). */
interface Manifest {
	name?: string;
	main?: string;
	types?: string;
	typings?: string;
	exports?: unknown;
	pi?: { extensions?: string[] };
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
}

const MODULE_FILE = /\.(?:[cm]?js|d\.[cm]?ts|[cm]?ts)$/;
// import … from "x", export … from "x", import "x", import("x"), require("x"), /// <reference path="x" />
const SPECIFIERS = [
	/\bfrom\s*["']([^"']+)["']/g,
	/\bimport\s*["']([^"']+)["']/g,
	/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
	/\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
	/\/\/\/\s*<reference\s+path\s*=\s*["']([^"']+)["']/g,
];

function walk(dir: string, root = dir): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? walk(path, root) : [relative(root, path)];
	});
}

/** Removes comments and leaves strings alone well enough for import scanning. */
function stripComments(text: string): string {
	return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/(?!\/\s*<reference).*$/gm, "$1");
}

/** The specifiers a module file imports. */
export function importSpecifiers(text: string): string[] {
	const code = stripComments(text);
	return [
		...new Set(SPECIFIERS.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1] ?? ""))),
	];
}

/** Candidate files a relative specifier may mean, per TypeScript/Node resolution of shipped files. */
function candidates(target: string, fromDeclaration: boolean): string[] {
	const list = [target];
	const stem = target.replace(/\.[cm]?js$/, "");
	if (stem !== target) {
		list.push(`${stem}.d.ts`, `${stem}.ts`);
		if (target.endsWith(".mjs")) list.push(`${stem}.d.mts`);
	}
	if (fromDeclaration && !/\.[a-z]+$/.test(target)) list.push(`${target}.d.ts`, join(target, "index.d.ts"));
	return list;
}

/** Every string path in an `exports` value (conditions and subpaths flattened). */
function exportTargets(value: unknown): string[] {
	if (typeof value === "string") return [value];
	if (Array.isArray(value)) return value.flatMap(exportTargets);
	if (value && typeof value === "object") return Object.values(value).flatMap(exportTargets);
	return [];
}

function packageName(specifier: string): string {
	const parts = specifier.split("/");
	return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** Lists every reference of the unpacked package at `dir` that does not resolve; empty when sound. */
export function unresolvedReferences(dir: string): string[] {
	const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
	const problems: string[] = [];
	const inside = (path: string) => !relative(dir, path).startsWith("..");
	const pointsAt = (field: string, target: string) => {
		const path = resolve(dir, target);
		if (!inside(path) || !existsSync(path))
			problems.push(`package.json ${field} -> ${target}: not in the tarball`);
	};
	for (const field of ["main", "types", "typings"] as const) {
		const target = manifest[field];
		if (target) pointsAt(field, target);
	}
	for (const target of exportTargets(manifest.exports)) pointsAt("exports", target);
	for (const target of manifest.pi?.extensions ?? []) pointsAt("pi.extensions", target);

	const declared = new Set([
		...Object.keys(manifest.dependencies ?? {}),
		...Object.keys(manifest.peerDependencies ?? {}),
		...Object.keys(manifest.optionalDependencies ?? {}),
		...(manifest.name ? [manifest.name] : []),
	]);
	for (const file of walk(dir).filter((name) => MODULE_FILE.test(name))) {
		const declaration = /\.d\.[cm]?ts$/.test(file);
		for (const specifier of importSpecifiers(readFileSync(join(dir, file), "utf8"))) {
			if (specifier.startsWith(".") || specifier.startsWith("/")) {
				const target = resolve(dirname(join(dir, file)), specifier);
				const found = candidates(target, declaration).some((path) => inside(path) && existsSync(path));
				if (!found) problems.push(`${file} imports ${specifier}: not in the tarball`);
			} else if (!specifier.startsWith("node:") && !builtinModules.includes(specifier)) {
				if (!declared.has(packageName(specifier)))
					problems.push(`${file} imports ${specifier}: not a dependency or peer of ${manifest.name}`);
			}
		}
	}
	return problems;
}
