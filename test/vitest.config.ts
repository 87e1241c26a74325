import { defineConfig } from "vitest/config";
import { hostAliases, hostVersion } from "../vitest.shared.js";

// The 1.3.0 pass re-runs what drives Pi (scripted sessions, packed tarballs, the real CLI). The
// reliability suite's properties and fuzzing exercise our own reducers and parsers (its scripted
// parts already ran on the dev pin), and the TUI driver always starts the dev-pinned CLI, so both
// run once, in the dev-pin pass.
// The consumer test installs the pass's host next to the kit's tarball, as a stranger would.
const onceOnly = hostVersion === "latest" ? [] : ["reliability/**", "tui/**", "release/**"];

export default defineConfig({
	// Our packages are imported through their exports, i.e. their built dist (`pnpm test` builds
	// first; after changing the kit, `pnpm build` before running vitest here). Vitest's Node
	// environment takes `ssr.resolve.conditions`, so a `resolve.conditions` entry would not select
	// sources. PI_LIFECYCLE_HOST=1.3.0 still swaps the host everywhere: the workspace dist is not
	// under node_modules, so Vite inlines it and applies the aliases (host-pass.test.ts checks it).
	// The extensions under test come from their packed tarballs, loaded by Pi's own loader.
	resolve: { alias: hostAliases() },
	test: {
		include: ["**/*.test.ts"],
		// fixtures/consumer is a separate project with its own tests (run by consumer/kit-consumer.test.ts).
		exclude: ["**/node_modules/**", ".artifacts/**", "fixtures/**", ...onceOnly],
		pool: "forks",
		maxWorkers: 2,
		// Long enough for the tmux tests' Pi start on a loaded 2-core machine (driver.ts waits up to 90 s).
		testTimeout: 180_000,
		hookTimeout: 120_000,
	},
});
