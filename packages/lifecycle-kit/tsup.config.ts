import { defineConfig } from "tsup";

export default defineConfig({
	entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts", text: "src/text.ts" },
	format: ["esm"],
	dts: true,
	clean: true,
	target: "node22",
	sourcemap: true,
	external: [/^@earendil-works\//, "typebox"],
});
