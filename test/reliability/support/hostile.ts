/**
 * Generators of malformed, truncated, legacy and hostile persisted data. Everything the packages
 * read back comes from JSON (session files, settings files, baseline files), so values are
 * JSON-shaped; `mutations` of a valid record cover the near-misses a real bug or an old version
 * writes (a field missing, the wrong type, an old version number, a huge string, deep nesting).
 * Every draw is a fresh plain tree built as JSON (never circular, nothing shared between draws),
 * so a property can always serialise its input; hostile-generators.test.ts checks that. Values
 * no file can hold (throwing getters, proxies, cycles) are the bus's business: live-hostile.ts.
 */
import fc from "fast-check";

/** A very long string (bounded so the suite stays fast). */
export const HUGE = "x".repeat(200_000);

/**
 * Odd values found in hand-edited or corrupted files, as JSON texts parsed on every draw: each
 * draw is a fresh tree (no value is shared between draws or positions), and a key like
 * `__proto__` is an own property exactly as `JSON.parse` reads it from a file.
 */
const ODD_TEXTS = [
	"null",
	"true",
	"false",
	"0",
	"-1",
	"1.5",
	"1e308",
	"-1e308",
	String(Number.MAX_SAFE_INTEGER + 2),
	'""',
	'"0"',
	'"null"',
	'"__proto__"',
	JSON.stringify(HUGE),
	JSON.stringify("\u0000\u202e"),
	"[]",
	"{}",
	"[null]",
	'{"__proto__":{"polluted":true}}',
	'{"constructor":{"prototype":{"polluted":true}}}',
] as const;

/** Odd JSON values (see {@link ODD_TEXTS}); a fresh value on every draw. */
export const oddScalar: fc.Arbitrary<unknown> = fc.constantFrom(...ODD_TEXTS).map((text) => JSON.parse(text));

/** Deeply nested JSON. */
export const deep: fc.Arbitrary<unknown> = fc.integer({ min: 50, max: 400 }).map((depth) => {
	let value: unknown = "bottom";
	for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { v: value };
	return value;
});

/** Any JSON value, odd scalars and deep nesting. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 3, arbitrary: fc.jsonValue() },
	{ weight: 2, arbitrary: oddScalar },
	{ weight: 1, arbitrary: deep },
);

/** One near-miss edit of a record: a field (at any depth) deleted or replaced. */
export interface Edit {
	readonly path: readonly string[];
	readonly op: "delete" | "replace";
	readonly value: unknown;
}

/** Near-miss versions of a valid record: drop, retype or replace fields, at any depth. */
export function mutations(valid: unknown): fc.Arbitrary<unknown> {
	const paths = collectPaths(valid);
	return fc.oneof(
		{ weight: 1, arbitrary: anyJson },
		{
			weight: 4,
			arbitrary: fc
				.array(
					fc.record({
						path: fc.constantFrom(...paths),
						op: fc.constantFrom("delete" as const, "replace" as const),
						value: anyJson,
					}),
					{ minLength: 1, maxLength: 4 },
				)
				.map((edits) => applyEdits(valid, edits)),
		},
	);
}

/**
 * Applies edits without mutating anything: each edit copies the path it changes and inserts a
 * JSON copy of its value, so the result is always a plain tree (never circular, never sharing a
 * node with `valid`, an edit's value or another draw). The result is what `JSON.parse` would read
 * back from the written file.
 */
export function applyEdits(valid: unknown, edits: readonly Edit[]): unknown {
	let tree = jsonCopy(valid);
	for (const edit of edits) tree = withEdit(tree, edit.path, edit.op, jsonCopy(edit.value));
	return tree ?? null;
}

/** A JSON copy (what writing and reading a file gives): `undefined` stays `undefined`. */
function jsonCopy(value: unknown): unknown {
	const text = JSON.stringify(value);
	return text === undefined ? undefined : JSON.parse(text);
}

function collectPaths(value: unknown, prefix: string[] = [], out: string[][] = [[]]): string[][] {
	if (typeof value === "object" && value !== null) {
		for (const [key, child] of Object.entries(value)) {
			const path = [...prefix, key];
			out.push(path);
			collectPaths(child, path, out);
		}
	}
	return out;
}

/** `node` with the field at `path` deleted or replaced; copies only the nodes along the path. */
function withEdit(node: unknown, path: readonly string[], op: "delete" | "replace", value: unknown): unknown {
	if (path.length === 0) return op === "delete" ? undefined : value;
	if (typeof node !== "object" || node === null) return node; // an earlier edit removed the path
	const [key, ...rest] = path as [string, ...string[]];
	const copy = (Array.isArray(node) ? [...node] : { ...node }) as Record<string, unknown>;
	if (!Object.hasOwn(copy, key) && (op === "delete" || rest.length > 0)) return node;
	const child = withEdit(copy[key], rest, op, value);
	if (child === undefined && !Array.isArray(copy)) delete copy[key];
	// defineProperty: a `__proto__` key stays an own field, as JSON.parse reads it.
	else
		Object.defineProperty(copy, key, {
			value: child ?? null,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	return copy;
}

/** Text versions of a JSON document: truncated at a random point, garbage, oversized, BOM. */
export function textVariants(valid: unknown): fc.Arbitrary<string> {
	const text = JSON.stringify(valid);
	return fc.oneof(
		mutations(valid).map((value) => JSON.stringify(value) ?? "null"),
		fc.nat(Math.max(0, text.length - 1)).map((cut) => text.slice(0, cut)),
		fc.string({ maxLength: 200 }),
		fc.constantFrom(
			"",
			"\ufeff{}",
			`${text}\n${text}`,
			`{"a":${"[".repeat(5_000)}`,
			`"${"y".repeat(70_000)}"`,
		),
	);
}
