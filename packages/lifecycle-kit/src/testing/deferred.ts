/** A promise with its resolve and reject exposed, for tests that control the order of events. */
export interface Deferred<T> {
	/** The controlled promise. */
	readonly promise: Promise<T>;
	/** Settles the promise with a value. */
	resolve(value: T): void;
	/** Settles the promise with an error. */
	reject(error: unknown): void;
	/** Whether resolve or reject has been called. */
	readonly settled: boolean;
}

/** Creates a {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
	let resolve!: (value: T) => void;
	let reject!: (error: unknown) => void;
	let settled = false;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return {
		promise,
		resolve(value) {
			settled = true;
			resolve(value);
		},
		reject(error) {
			settled = true;
			reject(error);
		},
		get settled() {
			return settled;
		},
	};
}

/** Lets queued microtasks and one macrotask turn run. */
export function flushMicrotasks(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}
