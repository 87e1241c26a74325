import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("pnpm demo", () => {
	it("the demo run prints one boundary continuation in one settled run and exits 0", () => {
		const script = fileURLToPath(new URL("./demo/run.ts", import.meta.url));
		const output = execFileSync(process.execPath, [script], { encoding: "utf8", timeout: 60_000 });
		expect(output).toContain("demo OK");
		expect(output).toContain("model requests: 2");
	});
});
