/**
 * Agent-style copy-modify edits of one function's text (pure, seeded): the edits coding agents make
 * when they copy a function instead of reusing it. Each operator re-parses the text, so operators
 * compose. Semantics are not preserved (only detection is measured), syntax is.
 */
import ts from "typescript";

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

type Random = () => number;
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

/** An edit: replace [start, end) with text. */
interface Edit {
	readonly start: number;
	readonly end: number;
	readonly text: string;
}

function apply(text: string, edits: readonly Edit[]): string {
	let out = text;
	for (const edit of [...edits].sort((a, b) => b.start - a.start))
		out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
	return out;
}

function parse(text: string, ext: string): ts.SourceFile {
	return ts.createSourceFile(
		`x${ext}`,
		text,
		ts.ScriptTarget.Latest,
		true,
		ext === ".ts" ? ts.ScriptKind.TS : ts.ScriptKind.JS,
	);
}

const WORDS = [
	"entry",
	"value",
	"record",
	"item",
	"node",
	"data",
	"result",
	"target",
	"source",
	"input",
	"output",
	"current",
	"next",
	"acc",
	"total",
	"buffer",
	"chunk",
	"part",
	"payload",
	"options",
	"config",
	"state",
	"ctx",
	"info",
	"meta",
	"list",
	"lookup",
	"key",
	"index",
	"count",
	"size",
	"flag",
	"temp",
	"handle",
	"request",
	"response",
	"message",
];
const VERBS = [
	"build",
	"compute",
	"resolve",
	"collect",
	"make",
	"create",
	"process",
	"handle",
	"prepare",
	"load",
];

function freshName(random: Random, taken: Set<string>, isFunction: boolean): string {
	for (let i = 0; ; i++) {
		const base = isFunction
			? `${pick(random, VERBS)}${capital(pick(random, WORDS))}`
			: `${pick(random, WORDS)}${i > 3 ? capital(pick(random, WORDS)) : ""}`;
		if (!taken.has(base)) {
			taken.add(base);
			return base;
		}
	}
}

function capital(word: string): string {
	return word[0]?.toUpperCase() + word.slice(1);
}

/** Names the function declares: its own name, parameters, variables, catch variables, inner functions. */
function declaredNames(sf: ts.SourceFile): { names: Set<string>; functions: Set<string> } {
	const names = new Set<string>();
	const functions = new Set<string>();
	const bind = (name: ts.BindingName) => {
		if (ts.isIdentifier(name)) names.add(name.text);
		else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
	};
	const visit = (node: ts.Node) => {
		if (
			(ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) &&
			node.name &&
			ts.isIdentifier(node.name)
		) {
			names.add(node.name.text);
			functions.add(node.name.text);
		}
		if (ts.isParameter(node) || ts.isVariableDeclaration(node)) bind(node.name);
		ts.forEachChild(node, visit);
	};
	visit(sf);
	names.delete("this");
	names.delete("__Holder__");
	return { names, functions };
}

/** Renames every identifier the function declares, consistently (what agents do first). */
export function renameIdentifiers(text: string, ext: string, random: Random): string {
	const sf = parse(text, ext);
	const { names, functions } = declaredNames(sf);
	const taken = new Set<string>();
	sf.forEachChild(function all(node: ts.Node) {
		if (ts.isIdentifier(node)) taken.add(node.text);
		node.forEachChild(all);
	});
	const map = new Map<string, string>();
	for (const name of [...names].sort()) map.set(name, freshName(random, taken, functions.has(name)));
	const edits: Edit[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isIdentifier(node) && map.has(node.text)) {
			const parent = node.parent;
			const isMember =
				(ts.isPropertyAccessExpression(parent) && parent.name === node) ||
				(ts.isPropertyAssignment(parent) && parent.name === node) ||
				(ts.isPropertyDeclaration(parent) && parent.name === node);
			const isOwnMethod = ts.isMethodDeclaration(parent) && parent.name === node;
			if (ts.isShorthandPropertyAssignment(parent)) {
				edits.push({
					start: node.getStart(sf),
					end: node.getEnd(),
					text: `${node.text}: ${map.get(node.text)}`,
				});
			} else if (!isMember || isOwnMethod) {
				edits.push({ start: node.getStart(sf), end: node.getEnd(), text: map.get(node.text) as string });
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(sf);
	return apply(text, edits);
}

/** Changes string and numeric literals (each with probability ½, at least one). */
export function changeLiterals(text: string, ext: string, random: Random): string {
	const sf = parse(text, ext);
	const literals: ts.Node[] = [];
	const visit = (node: ts.Node) => {
		if ((ts.isStringLiteral(node) && !ts.isImportDeclaration(node.parent)) || ts.isNumericLiteral(node))
			literals.push(node);
		if (ts.isNoSubstitutionTemplateLiteral(node)) literals.push(node);
		ts.forEachChild(node, visit);
	};
	visit(sf);
	if (literals.length === 0) return text;
	const chosen = literals.filter(() => random() < 0.5);
	if (chosen.length === 0) chosen.push(pick(random, literals));
	return apply(
		text,
		chosen.map((node) => {
			const replacement = ts.isNumericLiteral(node)
				? String(Math.floor(random() * 1000) + 2)
				: JSON.stringify(`${pick(random, WORDS)} ${pick(random, WORDS)}`);
			return { start: node.getStart(sf), end: node.getEnd(), text: replacement };
		}),
	);
}

/** Statement lists (blocks) with at least `min` statements. */
function blocks(sf: ts.SourceFile, min: number): ts.NodeArray<ts.Statement>[] {
	const out: ts.NodeArray<ts.Statement>[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isBlock(node) && node.statements.length >= min && !ts.isClassDeclaration(node.parent))
			out.push(node.statements);
		ts.forEachChild(node, visit);
	};
	visit(sf);
	return out;
}

const simple = (s: ts.Statement) =>
	ts.isExpressionStatement(s) || ts.isVariableStatement(s) || ts.isIfStatement(s);

/** Swaps two adjacent statements of one block. */
export function reorder(text: string, ext: string, random: Random): string {
	const sf = parse(text, ext);
	const pairs: [ts.Statement, ts.Statement][] = [];
	for (const list of blocks(sf, 2))
		for (let i = 0; i + 1 < list.length; i++)
			if (simple(list[i] as ts.Statement) && simple(list[i + 1] as ts.Statement))
				pairs.push([list[i] as ts.Statement, list[i + 1] as ts.Statement]);
	if (pairs.length === 0) return text;
	const [a, b] = pick(random, pairs);
	return apply(text, [
		{ start: a.getStart(sf), end: a.getEnd(), text: b.getText(sf) },
		{ start: b.getStart(sf), end: b.getEnd(), text: a.getText(sf) },
	]);
}

function lineIndent(sf: ts.SourceFile, node: ts.Node): string {
	const start = node.getStart(sf);
	const lineStart = sf.text.lastIndexOf("\n", start - 1) + 1;
	return sf.text.slice(lineStart, start);
}

/** Inserts one statement an agent might add: a log line, a guard, a timing or a normalisation. */
export function addStatement(text: string, ext: string, random: Random): string {
	const sf = parse(text, ext);
	const lists = blocks(sf, 2);
	if (lists.length === 0) return text;
	const list = pick(random, lists);
	const at = list[Math.floor(random() * (list.length - 1)) + 1] as ts.Statement;
	const { names } = declaredNames(sf);
	const name = pick(random, [...names].sort()) ?? "value";
	const statement = pick(random, [
		`console.debug("${pick(random, WORDS)}", ${name});`,
		`if (${name} === undefined) throw new Error("missing ${name}");`,
		`const startedAt = Date.now();`,
		`if (!${name}) return undefined;`,
		`${pick(random, WORDS)}Count += 1;`,
	]);
	const pad = lineIndent(sf, at);
	return apply(text, [{ start: at.getStart(sf), end: at.getStart(sf), text: `${statement}\n${pad}` }]);
}

/** Removes one statement (never the only one of its block). */
export function removeStatement(text: string, ext: string, random: Random): string {
	const sf = parse(text, ext);
	const candidates: ts.Statement[] = [];
	for (const list of blocks(sf, 3))
		for (const s of list.slice(0, -1)) if (s.getText(sf).split("\n").length <= 3) candidates.push(s);
	if (candidates.length === 0) return text;
	const s = pick(random, candidates);
	const lineStart = sf.text.lastIndexOf("\n", s.getStart(sf) - 1);
	return apply(text, [{ start: lineStart, end: s.getEnd(), text: "" }]);
}

/** Changes one statement: a member renamed, an operator swapped or an argument added. */
export function changeStatement(text: string, ext: string, random: Random): string {
	const sf = parse(text, ext);
	const statements: ts.Statement[] = [];
	for (const list of blocks(sf, 1))
		for (const s of list) if (simple(s) || ts.isReturnStatement(s)) statements.push(s);
	if (statements.length === 0) return text;
	const s = pick(random, statements);
	const members: ts.Node[] = [];
	const calls: ts.CallExpression[] = [];
	const binaries: ts.BinaryExpression[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isPropertyAccessExpression(node)) members.push(node.name);
		if (ts.isCallExpression(node)) calls.push(node);
		if (
			ts.isBinaryExpression(node) &&
			/^(===|!==|<|>|<=|>=|&&|\|\||\+|-)$/.test(node.operatorToken.getText(sf))
		)
			binaries.push(node);
		ts.forEachChild(node, visit);
	};
	visit(s);
	const choice = random();
	if (binaries.length > 0 && choice < 0.34) {
		const op = pick(random, binaries).operatorToken;
		const swap: Record<string, string> = {
			"===": "!==",
			"!==": "===",
			"<": "<=",
			">": ">=",
			"<=": "<",
			">=": ">",
			"&&": "||",
			"||": "&&",
			"+": "-",
			"-": "+",
		};
		return apply(text, [{ start: op.getStart(sf), end: op.getEnd(), text: swap[op.getText(sf)] as string }]);
	}
	if (calls.length > 0 && choice < 0.67) {
		const call = pick(random, calls);
		const end = call.getEnd() - 1;
		const extra = call.arguments.length > 0 ? `, ${pick(random, WORDS)}` : pick(random, WORDS);
		return apply(text, [{ start: end, end, text: extra }]);
	}
	if (members.length > 0) {
		const member = pick(random, members);
		return apply(text, [{ start: member.getStart(sf), end: member.getEnd(), text: pick(random, WORDS) }]);
	}
	return addStatement(removeStatement(text, ext, random), ext, random);
}

/** The positive classes of the corpus: agent-style copy-modify edits, composed left to right. */
export const POSITIVE_CLASSES: Readonly<
	Record<string, readonly ((text: string, ext: string, random: Random) => string)[]>
> = {
	exact: [],
	rename: [renameIdentifiers],
	"rename+literals": [renameIdentifiers, changeLiterals],
	literals: [changeLiterals],
	"rename+reorder": [renameIdentifiers, reorder],
	"rename+add": [renameIdentifiers, addStatement],
	"rename+remove": [renameIdentifiers, removeStatement],
	"rename+change": [renameIdentifiers, changeStatement],
	add: [addStatement],
	remove: [removeStatement],
	change: [changeStatement],
	"rename+add+remove": [renameIdentifiers, addStatement, removeStatement],
};
