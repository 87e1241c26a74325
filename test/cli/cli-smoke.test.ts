import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type PiRun, runPi } from "./run-pi.js";

const script = (name: string) => fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));
let run: PiRun | undefined;
afterEach(() => run?.cleanup());

describe("real pi CLI harness", () => {
	it("the real pi CLI runs offline in json mode with the scripted faux model", async () => {
		run = await runPi({ extensions: [], script: script("hello.mjs"), prompt: "hi" });
		expect(run.code, run.stderr).toBe(0);
		expect(run.requests).toHaveLength(1);
		expect(run.events.at(-1)).toMatchObject({ type: "agent_settled", aborted: false });
	});
});
