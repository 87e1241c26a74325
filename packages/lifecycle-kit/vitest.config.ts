import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.js";

const shared = packageTestConfig();
// The shipped example imports the kit by its package name (so it resolves from an install too);
// here that name means this package's sources.
const self = {
	find: /^@pi-lifecycle\/lifecycle-kit$/,
	replacement: fileURLToPath(new URL("src/index.ts", import.meta.url)),
};

export default defineConfig({
	...shared,
	resolve: { ...shared.resolve, alias: [...shared.resolve.alias, self] },
});
