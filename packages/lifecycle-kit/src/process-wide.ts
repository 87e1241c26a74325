/**
 * Values shared by every copy of a module in one process. Each installed extension has its own
 * module root, and `/reload` loads a fresh copy of an extension's modules, so a module-level
 * variable is not shared: the value lives on `globalThis` under a `Symbol.for` name instead.
 */

/**
 * The process-wide value stored under `name` (a versioned name such as `my-ext/handover.v1`),
 * created by `create` on first use. Every copy of every module that asks for the same name gets the
 * same value, so its shape is a protocol between versions: add fields, never change one; give an
 * incompatible shape a new name.
 */
export function processWideValue<T>(name: string, create: () => T): T {
	const holder = globalThis as { [key: symbol]: unknown };
	const key = Symbol.for(name);
	holder[key] ??= create();
	return holder[key] as T;
}
