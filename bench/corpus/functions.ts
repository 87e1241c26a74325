/**
 * Real functions for the clone-kind corpus: function declarations and methods of 8–40 lines with at
 * least three statements, taken from the sources of packages installed in this workspace (code we
 * did not write). Deterministic: files and functions are visited in sorted order.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** One extracted function. */
export interface SourceFunction {
	/** Package the function comes from (e.g. `undici`). */
	readonly source: string;
	/** Path inside the workspace's node_modules. */
	readonly file: string;
	/** `.ts` or `.js`. */
	readonly ext: ".ts" | ".js";
	/** The function's text, valid at the top level of a module (methods are wrapped in a class). */
	readonly text: string;
	/** Whether `text` is a method wrapped in `class __Holder__ { … }`. */
	readonly method: boolean;
	/** Lines of the function itself. */
	readonly lines: number;
	/** Shape: the kinds of the body's top-level statements (for hard negatives). */
	readonly shape: readonly string[];
	/** Coarse shape classes: accumulate, guard, builder, loop, branch, call. */
	readonly classes: readonly string[];
}

/** Package source directories used (glob-free: the first matching `.pnpm` entry). */
const ROOTS: readonly { readonly source: string; readonly prefix: string; readonly dir: string }[] = [
	{ source: "undici", prefix: "undici@", dir: "node_modules/undici/lib" },
	{ source: "@anthropic-ai/sdk", prefix: "@anthropic-ai+sdk@", dir: "node_modules/@anthropic-ai/sdk/src" },
	{ source: "openai", prefix: "openai@7.59", dir: "node_modules/openai/src" },
	{ source: "protobufjs", prefix: "protobufjs@", dir: "node_modules/protobufjs/src" },
	{ source: "yaml", prefix: "yaml@", dir: "node_modules/yaml/dist" },
	{ source: "typebox", prefix: "typebox@", dir: "node_modules/typebox/build" },
	{ source: "marked", prefix: "marked@", dir: "node_modules/marked/lib" },
	{ source: "semver", prefix: "semver@", dir: "node_modules/semver" },
	{ source: "commander", prefix: "commander@", dir: "node_modules/commander/lib" },
	{ source: "@google/genai", prefix: "@google+genai@", dir: "node_modules/@google/genai/dist/node" },
];

/** Finds `<workspace>/node_modules/.pnpm/<prefix>*` + `dir`, or undefined. */
export function packageDir(workspace: string, prefix: string, dir: string): string | undefined {
	const store = join(workspace, "node_modules/.pnpm");
	const entry = readdirSync(store)
		.filter((name) => name.startsWith(prefix))
		.sort()[0];
	if (!entry) return undefined;
	const path = join(store, entry, dir);
	try {
		return statSync(path).isDirectory() ? path : undefined;
	} catch {
		return undefined;
	}
}

/** Source files under `dir` (`.ts` but not `.d.ts`, `.js`, `.mjs`), sorted, skipping minified bundles. */
export function sourceFiles(dir: string): string[] {
	const out: string[] = [];
	const walk = (at: string) => {
		for (const name of readdirSync(at).sort()) {
			const path = join(at, name);
			const stat = statSync(path);
			if (stat.isDirectory()) {
				if (name !== "node_modules") walk(path);
			} else if (/\.(ts|js|mjs)$/.test(name) && !/\.d\.(ts|mts)$/.test(name) && !/\.min\./.test(name)) {
				if (stat.size < 400_000) out.push(path);
			}
		}
	};
	walk(dir);
	return out;
}

function statementKind(node: ts.Statement): string {
	return ts.SyntaxKind[node.kind].replace(/Statement$|Declaration$/, "");
}

function classesOf(body: ts.Block, sf: ts.SourceFile): string[] {
	const text = body.getText(sf);
	const classes = new Set<string>();
	const first = body.statements[0];
	if (first && ts.isIfStatement(first) && /\b(return|throw)\b/.test(first.thenStatement.getText(sf)))
		classes.add("guard");
	if (/\bfor\s*\(|\.forEach\(|\bwhile\s*\(/.test(text)) {
		classes.add("loop");
		if (/\+=|\.push\(|\.set\(|\+\+/.test(text)) classes.add("accumulate");
	}
	const last = body.statements[body.statements.length - 1];
	if (last && ts.isReturnStatement(last) && last.expression && ts.isObjectLiteralExpression(last.expression))
		classes.add("builder");
	if (body.statements.some((s) => ts.isIfStatement(s) || ts.isSwitchStatement(s))) classes.add("branch");
	if (classes.size === 0) classes.add("call");
	return [...classes];
}

/** Every usable function of one file. */
export function functionsOf(source: string, file: string, workspace: string): SourceFunction[] {
	const text = readFileSync(file, "utf8");
	const ext = file.endsWith(".ts") ? ".ts" : ".js";
	const sf = ts.createSourceFile(
		file,
		text,
		ts.ScriptTarget.Latest,
		true,
		ext === ".ts" ? ts.ScriptKind.TS : ts.ScriptKind.JS,
	);
	const out: SourceFunction[] = [];
	const visit = (node: ts.Node) => {
		const isFunction = ts.isFunctionDeclaration(node) && node.name !== undefined;
		const isMethod = ts.isMethodDeclaration(node) && ts.isIdentifier(node.name);
		if ((isFunction || isMethod) && node.body && ts.isBlock(node.body)) {
			const own = node.getText(sf);
			const lines = own.split("\n").length;
			if (lines >= 8 && lines <= 40 && node.body.statements.length >= 3 && !own.includes("\t\t\t\t\t\t\t")) {
				const method = isMethod;
				const dedented = dedent(own, sf, node);
				out.push({
					source,
					file: relative(workspace, file),
					ext,
					text: method ? `class __Holder__ {\n${indent(dedented)}\n}` : dedented,
					method,
					lines,
					shape: node.body.statements.map(statementKind),
					classes: classesOf(node.body, sf),
				});
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(sf);
	return out;
}

function dedent(own: string, sf: ts.SourceFile, node: ts.Node): string {
	const { character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
	const lineStart = sf.text.lastIndexOf("\n", node.getStart(sf) - 1) + 1;
	const lead = sf.text.slice(lineStart, lineStart + character);
	if (!/^\s*$/.test(lead) || lead === "") return own;
	return own
		.split("\n")
		.map((line, i) => (i > 0 && line.startsWith(lead) ? line.slice(lead.length) : line))
		.join("\n");
}

function indent(text: string): string {
	return text
		.split("\n")
		.map((line) => (line ? `\t${line}` : line))
		.join("\n");
}

/** All usable functions of every root, deduplicated by whitespace-normalised text. */
export function collectFunctions(workspace: string): SourceFunction[] {
	const seen = new Set<string>();
	const out: SourceFunction[] = [];
	for (const root of ROOTS) {
		const dir = packageDir(workspace, root.prefix, root.dir);
		if (!dir) continue;
		for (const file of sourceFiles(dir)) {
			for (const fn of functionsOf(root.source, file, workspace)) {
				const key = fn.text.replace(/\s+/g, " ");
				if (seen.has(key)) continue;
				seen.add(key);
				out.push(fn);
			}
		}
	}
	return out;
}
