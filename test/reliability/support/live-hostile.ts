/**
 * Hostile live objects: what another extension can put on Pi's bus (`pi.events`), which no file
 * can hold — getters that throw, getters that answer differently on each read, proxies whose traps
 * throw, circular payloads, frozen payloads, revoked proxies and non-object values. Only places
 * that take live objects (bus listeners, offered responses) get these; persisted data is JSON
 * (hostile.ts).
 *
 * The arbitrary draws a plain recipe (printable, shrinkable); {@link buildLive} turns it into a
 * fresh live object around a valid payload, so a failing property prints the recipe, not a proxy.
 */
import fc from "fast-check";
import { anyJson } from "./hostile.js";

/** How a live payload is broken. */
export type LiveRecipe =
	| { readonly kind: "throwing-getters"; readonly keys: readonly string[] }
	/** The first read of each key answers the valid value, later reads `later` (or throw). */
	| {
			readonly kind: "shifting-getters";
			readonly keys: readonly string[];
			readonly later: unknown;
			readonly throws: boolean;
	  }
	| { readonly kind: "throwing-proxy"; readonly trap: ProxyTrap }
	| { readonly kind: "lying-proxy"; readonly answer: unknown }
	| { readonly kind: "circular"; readonly keys: readonly string[] }
	| { readonly kind: "frozen" }
	| { readonly kind: "revoked-proxy" }
	| { readonly kind: "throwing-primitives"; readonly keys: readonly string[] }
	| { readonly kind: "not-an-object"; readonly value: "function" | "symbol" | "bigint" | "array" };

type ProxyTrap =
	| "get"
	| "has"
	| "ownKeys"
	| "getOwnPropertyDescriptor"
	| "getPrototypeOf"
	| "set"
	| "defineProperty";

const TRAPS: readonly ProxyTrap[] = [
	"get",
	"has",
	"ownKeys",
	"getOwnPropertyDescriptor",
	"getPrototypeOf",
	"set",
	"defineProperty",
];

/** Recipes of hostile live payloads around a valid payload with these keys. */
export function liveRecipes(keys: readonly string[]): fc.Arbitrary<LiveRecipe> {
	const someKeys = fc.subarray([...keys], { minLength: 1 });
	return fc.oneof(
		fc.record({ kind: fc.constant("throwing-getters" as const), keys: someKeys }),
		fc.record({
			kind: fc.constant("shifting-getters" as const),
			keys: someKeys,
			later: anyJson,
			throws: fc.boolean(),
		}),
		fc.record({ kind: fc.constant("throwing-proxy" as const), trap: fc.constantFrom(...TRAPS) }),
		fc.record({ kind: fc.constant("lying-proxy" as const), answer: anyJson }),
		fc.record({ kind: fc.constant("circular" as const), keys: someKeys }),
		fc.constant({ kind: "frozen" as const }),
		fc.constant({ kind: "revoked-proxy" as const }),
		fc.record({ kind: fc.constant("throwing-primitives" as const), keys: someKeys }),
		fc.record({
			kind: fc.constant("not-an-object" as const),
			value: fc.constantFrom("function" as const, "symbol" as const, "bigint" as const, "array" as const),
		}),
	);
}

/** A value whose conversion to a string or number throws. */
function throwingPrimitive(): object {
	const boom = () => {
		throw new Error("hostile conversion");
	};
	return { [Symbol.toPrimitive]: boom, toString: boom, valueOf: boom, toJSON: boom };
}

/** Builds a fresh live payload from `valid` (a plain object of the channel's fields) and a recipe. */
export function buildLive(valid: Readonly<Record<string, unknown>>, recipe: LiveRecipe): unknown {
	const base: Record<string, unknown> = { ...valid };
	switch (recipe.kind) {
		case "throwing-getters":
			for (const key of recipe.keys)
				Object.defineProperty(base, key, {
					enumerable: true,
					get() {
						throw new Error(`hostile getter ${key}`);
					},
				});
			return base;
		case "shifting-getters":
			for (const key of recipe.keys) {
				let reads = 0;
				Object.defineProperty(base, key, {
					enumerable: true,
					get() {
						reads++;
						if (reads === 1) return valid[key];
						if (recipe.throws) throw new Error(`hostile getter ${key} (read ${reads})`);
						return recipe.later;
					},
				});
			}
			return base;
		case "throwing-proxy":
			return new Proxy(base, {
				[recipe.trap]() {
					throw new Error(`hostile ${recipe.trap} trap`);
				},
			});
		case "lying-proxy":
			return new Proxy(base, { get: () => recipe.answer, has: () => true });
		case "circular": {
			for (const key of recipe.keys) base[key] = base;
			base.self = base;
			return base;
		}
		case "frozen":
			return Object.freeze(base);
		case "revoked-proxy": {
			const { proxy, revoke } = Proxy.revocable(base, {});
			revoke();
			return proxy;
		}
		case "throwing-primitives":
			for (const key of recipe.keys) base[key] = throwingPrimitive();
			return base;
		case "not-an-object":
			return recipe.value === "function"
				? Object.assign(() => undefined, valid)
				: recipe.value === "symbol"
					? Symbol("hostile")
					: recipe.value === "bigint"
						? 10n ** 30n
						: [valid, valid];
	}
}
