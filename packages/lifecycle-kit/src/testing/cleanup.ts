/**
 * Registers cleanups (a harness's dispose, a console capture's restore) with the test runner, so a
 * test that forgets them cannot leak a session into the next test.
 *
 * Under vitest (`process.env.VITEST` is set in its workers) the default is vitest's
 * `onTestFinished`, which runs after the current test whatever its outcome. Outside a test (in
 * `beforeAll`, at module level, in a benchmark) and under other runners nothing is registered unless
 * {@link setTestCleanup} installs a registrar (for example `afterEach` of another runner).
 */

/** Registers one cleanup with the test runner; may throw when the runner cannot take it now. */
export type CleanupRegistrar = (cleanup: () => unknown) => void;

// A variable specifier: the bundler leaves the import alone, and vitest resolves from the consumer.
const VITEST = "vitest";

async function vitestRegistrar(): Promise<CleanupRegistrar | undefined> {
	if (!process.env.VITEST) return undefined;
	try {
		const vitest = (await import(VITEST)) as { onTestFinished?: (fn: () => unknown) => void };
		const onTestFinished = vitest.onTestFinished;
		return onTestFinished ? (cleanup) => onTestFinished(cleanup) : undefined;
	} catch {
		return undefined;
	}
}

const automatic = await vitestRegistrar();
let configured: CleanupRegistrar | null | undefined;

/**
 * Replaces how harness cleanups are registered: a runner's hook (e.g. `afterEach`-style
 * registration for another test runner), `null` to turn automatic cleanup off, or `undefined` to go
 * back to the default (vitest's `onTestFinished` when running under vitest).
 */
export function setTestCleanup(registrar: CleanupRegistrar | null | undefined): void {
	configured = registrar;
}

/** Registers `cleanup` with the test runner. Returns whether it was registered. Never throws. */
export function registerTestCleanup(cleanup: () => unknown): boolean {
	const registrar = configured === undefined ? automatic : configured;
	if (!registrar) return false;
	try {
		registrar(cleanup);
		return true;
	} catch {
		// Not inside a test (vitest's onTestFinished throws there): the caller cleans up itself.
		return false;
	}
}
