/**
 * Generators of malformed, truncated, legacy and hostile persisted data. Everything the packages
 * read back comes from JSON (session files, settings files, baseline files), so values are
 * JSON-shaped; `mutations` of a valid record cover the near-misses a real bug or an old version
 * writes (a field missing, the wrong type, an old version number, a huge string, deep nesting).
 */
import fc from "fast-check";

/** A very long string (bounded so the suite stays fast). */
export const HUGE = "x".repeat(200_000);

/** Odd scalar values found in hand-edited or corrupted files. */
export const oddScalar: fc.Arbitrary<unknown> = fc.constantFrom(
	null,
	true,
	false,
	0,
	-1,
	1.5,
	1e308,
	-1e308,
	Number.MAX_SAFE_INTEGER + 2,
	"",
	"0",
	"null",
	"__proto__",
	HUGE,
	"\u0000\u202e",
	[],
	{},
	[null],
	{ __proto__: { polluted: true } },
);

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
				.map((edits) => {
					let copy = structuredClone(valid);
					for (const edit of edits) copy = applyEdit(copy, edit.path, edit.op, edit.value);
					return JSON.parse(JSON.stringify(copy ?? null)) as unknown;
				}),
		},
	);
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

function applyEdit(
	root: unknown,
	path: readonly string[],
	op: "delete" | "replace",
	value: unknown,
): unknown {
	if (path.length === 0) return op === "delete" ? undefined : value;
	let node = root as Record<string, unknown>;
	for (const key of path.slice(0, -1)) {
		const next = node?.[key];
		if (typeof next !== "object" || next === null) return root;
		node = next as Record<string, unknown>;
	}
	const last = path.at(-1) as string;
	if (typeof node !== "object" || node === null) return root;
	if (op === "delete") delete node[last];
	else node[last] = value;
	return root;
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
