import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("pnpm demo", () => {
	it("the demo plays goal → duplicate → quiet finding → fix → reset → complete on the real pi CLI", async () => {
		const script = fileURLToPath(new URL("./demo/run.ts", import.meta.url));
		const output = await new Promise<string>((resolve) => {
			const child = execFile(
				process.execPath,
				[script],
				{ encoding: "utf8", timeout: 120_000 },
				(_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
			);
			child.stdin?.end();
		});
		expect(output).toContain("demo OK");
		expect(output).toMatch(/context resets: 1/);
		expect(output).toMatch(/goal complete: yes/);
	}, 150_000);
});
