/**
 * The generators themselves: JSON-shaped hostile data must be what a file can hold on every seed
 * (issue 25: on 8 of 20 seeds `mutations` built circular values, the fuzz properties aborted and
 * never reached the readers), and live hostile payloads must be what their recipe says.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyJson, applyEdits, mutations, oddScalar, textVariants } from "./support/hostile.js";
import { buildLive, liveRecipes } from "./support/live-hostile.js";

/** Problems that make `value` something no JSON file can hold (cycles, shared nodes, non-JSON types). */
function notJson(value: unknown, seen = new Set<object>(), path = "$"): string[] {
	if (value === null || typeof value === "string" || typeof value === "boolean") return [];
	if (typeof value === "number") return Number.isFinite(value) ? [] : [`${path}: ${value}`];
	if (typeof value !== "object") return [`${path}: ${typeof value}`];
	if (seen.has(value)) return [`${path}: shared or circular node`];
	seen.add(value);
	const proto = Object.getPrototypeOf(value);
	if (proto !== Object.prototype && proto !== Array.prototype) return [`${path}: prototype`];
	return Object.entries(value).flatMap(([key, child]) => notJson(child, seen, `${path}.${key}`));
}

const RECORD = {
	v: 1,
	state: { revision: 7, goal: { id: "g-1", usage: { spent: 1, baseline: 2 }, wait: { reason: "CI" } } },
	list: [{ a: 1 }, { b: [2, 3] }],
};

describe("JSON-shaped hostile generators", () => {
	// The seed-4 counterexample, as a plain case: edit 1 put the shared `{}` of the odd-value pool at
	// `state`, edit 2 wrote the same `{}` into itself at `state.goal` — a cycle, and a polluted pool.
	it("applyEdits never builds a cycle or writes into an edit's value (seed 4 counterexample)", () => {
		const shared = {};
		const out = applyEdits(RECORD, [
			{ path: ["state"], op: "replace", value: shared },
			{ path: ["state", "goal"], op: "replace", value: shared },
		]);
		expect(notJson(out)).toEqual([]);
		expect(JSON.stringify(out)).toBe('{"v":1,"state":{"goal":{}},"list":[{"a":1},{"b":[2,3]}]}');
		expect(shared).toEqual({});
		expect(RECORD.state.goal.id).toBe("g-1");
	});

	it("applyEdits keeps a `__proto__` key an own field, as JSON.parse reads it", () => {
		const out = applyEdits(RECORD, [
			{ path: ["v"], op: "replace", value: JSON.parse('{"__proto__":{"x":1}}') },
		]);
		expect(Object.getPrototypeOf((out as { v: object }).v)).toBe(Object.prototype);
		expect(JSON.stringify(out)).toContain('"v":{"__proto__":{"x":1}}');
	});

	it("odd values are fresh on every draw (no pool to pollute)", () => {
		const [a, b] = fc
			.sample(fc.tuple(oddScalar, oddScalar), { seed: 1, numRuns: 200 })
			.find(([x, y]) => typeof x === "object" && x !== null && JSON.stringify(x) === JSON.stringify(y)) ?? [
			{},
			{},
		];
		expect(a).not.toBe(b);
	});

	// The regression the issue reported: 20 seeds, including the 8 that built circular values.
	for (const seed of [1, 2, 3, 4, 5, 7, 11, 13, 17, 19, 20_260_812, 20_260_923]) {
		it(`mutations, anyJson and textVariants yield JSON-shaped data only (seed ${seed})`, () => {
			const values = fc.sample(fc.tuple(mutations(RECORD), anyJson), { seed, numRuns: 1_000 });
			for (const [mutated, any] of values) {
				expect(notJson(mutated)).toEqual([]);
				expect(notJson(any)).toEqual([]);
			}
			for (const text of fc.sample(textVariants(RECORD), { seed, numRuns: 300 }))
				expect(typeof text).toBe("string");
			expect(RECORD.state.goal.usage).toEqual({ spent: 1, baseline: 2 });
		});
	}
});

describe("live hostile payloads (bus only)", () => {
	const VALID = { session: { id: "s" }, runId: "r", entryId: "e" };
	it("each recipe builds what it names: throwing reads, shifting reads, cycles, revoked proxies", () => {
		const recipes = fc.sample(liveRecipes(Object.keys(VALID)), { seed: 3, numRuns: 400 });
		const kinds = new Set(recipes.map((r) => r.kind));
		expect(kinds.size).toBe(9);
		for (const recipe of recipes) {
			const live = buildLive(VALID, recipe) as Record<string, unknown>;
			switch (recipe.kind) {
				case "throwing-getters":
					for (const key of recipe.keys) expect(() => live[key]).toThrow();
					break;
				case "shifting-getters":
					for (const key of recipe.keys) {
						expect(live[key]).toBe(VALID[key as keyof typeof VALID]);
						if (recipe.throws) expect(() => live[key]).toThrow();
						else expect(live[key]).toBe(recipe.later);
					}
					break;
				case "circular":
					expect(() => JSON.stringify(live)).toThrow(/circular/);
					break;
				case "revoked-proxy":
					expect(() => live.session).toThrow();
					break;
				case "throwing-proxy":
					expect(() => {
						if (recipe.trap === "get") void live.session;
						else if (recipe.trap === "has") void ("session" in live);
						else if (recipe.trap === "ownKeys") Object.keys(live);
						else if (recipe.trap === "getOwnPropertyDescriptor")
							Object.getOwnPropertyDescriptor(live, "session");
						else if (recipe.trap === "getPrototypeOf") Object.getPrototypeOf(live);
						else if (recipe.trap === "set") live.busy = true;
						else Object.defineProperty(live, "busy", { value: true });
					}).toThrow();
					break;
				case "frozen":
					expect(Object.isFrozen(live)).toBe(true);
					break;
				default:
					break;
			}
		}
		// Every draw is a fresh object: two identical recipes never share a payload.
		expect(buildLive(VALID, { kind: "frozen" })).not.toBe(buildLive(VALID, { kind: "frozen" }));
	});
});
