/**
 * Shared vitest settings for every workspace package.
 *
 * `PI_LIFECYCLE_HOST=1.3.0` runs a suite against the oldest supported Pi (installed at the root as
 * `pi-coding-agent-1.3.0` / `pi-ai-1.3.0`) instead of the dev-pinned one: imports of the host
 * packages from our sources and tests are redirected to that copy, and Pi's own modules resolve
 * their dependencies from it.
 */
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults } from "vitest/config";

const root = dirname(fileURLToPath(import.meta.url));

/** The host version the suite runs against: "latest" (dev pin) or "1.3.0". */
export const hostVersion = process.env.PI_LIFECYCLE_HOST === "1.3.0" ? "1.3.0" : "latest";

function entry(aliasDir: string): string {
	const dir = realpathSync(join(root, "node_modules", aliasDir));
	const require = createRequire(join(dir, "package.json"));
	return require.resolve(join(dir, "dist", "index.js"));
}

/** Vite aliases that swap the host packages for the selected version (none for the dev pin). */
export function hostAliases(): { find: RegExp; replacement: string }[] {
	if (hostVersion === "latest") return [];
	return [
		{ find: /^@earendil-works\/pi-coding-agent$/, replacement: entry("pi-coding-agent-1.3.0") },
		{ find: /^@earendil-works\/pi-ai$/, replacement: entry("pi-ai-1.3.0") },
	];
}

/** The vitest configuration every package shares (each package's vitest.config.ts is one line). */
export function packageTestConfig() {
	return {
		// PI_LIFECYCLE_HOST=1.3.0 runs the suite against the oldest supported Pi (see above). Another
		// workspace package (lifecycle-kit) is imported from its built dist: `pnpm build` after changing
		// it (`pnpm test` does). packages/lifecycle-kit/test/host-pass.session.test.ts checks which Pi a pass drives.
		resolve: { alias: hostAliases() },
		test: {
			include: ["test/**/*.test.ts"],
			// Property tests (`*.property.test.ts`) exercise our own reducers with generated schedules, not
			// Pi: like the root reliability suite, they run once, in the dev-pin pass (with the fixed seed;
			// `pnpm test` runs them again with a random one).
			exclude:
				hostVersion === "latest"
					? configDefaults.exclude
					: [...configDefaults.exclude, "test/**/*.property.test.ts"],
			// `it.each` names interpolate whole values ("$rule"): a test named after a rule keeps its full name.
			taskTitleValueFormatTruncate: 0,
			pool: "forks" as const,
			maxWorkers: 2,
			testTimeout: 30_000,
			hookTimeout: 30_000,
		},
	};
}
