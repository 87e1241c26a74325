import { defineConfig } from "tsup";

export default defineConfig({
	entry: { index: "src/index.ts" },
	format: ["esm"],
	dts: true,
	clean: true,
	target: "node22",
	sourcemap: true,
	// Host packages are provided by Pi at runtime; lifecycle-kit and jscpd are real dependencies.
	external: [/^@earendil-works\//, "typebox", /^@pi-lifecycle\//, "jscpd", "ignore"],
});
