import { defineConfig } from "vitest/config";
import { hostAliases, hostVersion } from "../vitest.shared.js";

// The 1.3.0 pass re-runs what drives Pi (scripted sessions, packed tarballs, the real CLI). The
// reliability suite's properties and fuzzing exercise our own reducers and parsers (its scripted
// parts already ran on the dev pin), and the TUI driver always starts the dev-pinned CLI, so both
// run once, in the dev-pin pass.
// The consumer test installs the dev-pinned host next to the kit's tarball, as a stranger would.
const onceOnly = hostVersion === "latest" ? [] : ["reliability/**", "tui/**", "consumer/**", "release/**"];

export default defineConfig({
	// The kit's harness is used from source so that PI_LIFECYCLE_HOST=1.3.0 swaps the host it drives;
	// the extensions under test come from their packed tarballs, loaded by Pi's own loader.
	resolve: { conditions: ["@pi-lifecycle/source"], alias: hostAliases() },
	test: {
		include: ["**/*.test.ts"],
		// fixtures/consumer is a separate project with its own tests (run by consumer/kit-consumer.test.ts).
		exclude: ["**/node_modules/**", ".artifacts/**", "fixtures/**", ...onceOnly],
		pool: "forks",
		maxWorkers: 2,
		testTimeout: 60_000,
		hookTimeout: 120_000,
	},
});
