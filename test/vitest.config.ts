import { defineConfig } from "vitest/config";
import { hostAliases } from "../vitest.shared.js";

export default defineConfig({
	// The kit's harness is used from source so that PI_LIFECYCLE_HOST=1.3.0 swaps the host it drives;
	// the extensions under test come from their packed tarballs, loaded by Pi's own loader.
	resolve: { conditions: ["@pi-lifecycle/source"], alias: hostAliases() },
	test: {
		include: ["**/*.test.ts"],
		exclude: ["**/node_modules/**", ".artifacts/**"],
		pool: "forks",
		maxWorkers: 2,
		testTimeout: 60_000,
		hookTimeout: 120_000,
	},
});
