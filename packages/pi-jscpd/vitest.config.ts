import { defineConfig } from "vitest/config";
import { hostAliases } from "../../vitest.shared.js";

export default defineConfig({
	// PI_LIFECYCLE_HOST=1.3.0 runs the suite against the oldest supported Pi (see vitest.shared.ts).
	resolve: { conditions: ["@pi-lifecycle/source"], alias: hostAliases() },
	test: {
		include: ["test/**/*.test.ts"],
		pool: "forks",
		maxWorkers: 2,
		testTimeout: 30_000,
		hookTimeout: 30_000,
	},
});
