/**
 * Rule "one value per name per process": every copy of a module (each extension's own kit, a copy
 * `/reload` loaded) that asks for a name gets the same value, created once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { processWideValue } from "../src/index.js";

const NAME = "@pi-lifecycle/kit-test/process-wide.v1";

afterEach(() => {
	delete (globalThis as { [key: symbol]: unknown })[Symbol.for(NAME)];
});

describe("processWideValue", () => {
	it("creates the value once and returns the same value for the same name", () => {
		let created = 0;
		const first = processWideValue(NAME, () => ({ n: ++created }));
		const second = processWideValue(NAME, () => ({ n: ++created }));
		expect(second).toBe(first);
		expect(created).toBe(1);
	});

	it("is found by another module copy under the same Symbol.for name", () => {
		const value = processWideValue(NAME, () => new Set<string>());
		// What another copy of the kit (its own module instance) reads.
		expect((globalThis as { [key: symbol]: unknown })[Symbol.for(NAME)]).toBe(value);
	});

	it("keeps values of different names apart", () => {
		const a = processWideValue(NAME, () => ({ which: "a" }));
		const b = processWideValue(`${NAME}-other`, () => ({ which: "b" }));
		expect(a).not.toBe(b);
		delete (globalThis as { [key: symbol]: unknown })[Symbol.for(`${NAME}-other`)];
	});
});
