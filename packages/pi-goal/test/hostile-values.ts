/** Hostile values shared by the hostile-input tests. */

/** An object whose every property read throws. */
export const throwing = new Proxy(
	{},
	{
		get() {
			throw new Error("hostile get");
		},
		has() {
			throw new Error("hostile has");
		},
		ownKeys() {
			throw new Error("hostile keys");
		},
		getPrototypeOf() {
			throw new Error("hostile proto");
		},
	},
);
/** A revoked proxy: any operation on it throws. */
export const revoked = (() => {
	const { proxy, revoke } = Proxy.revocable({}, {});
	revoke();
	return proxy;
})();
