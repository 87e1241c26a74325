/**
 * Child process of durability.test.ts ("a budget stop holds"): a `/goal --tokens <budget>` run with
 * all three extensions on a real session file, every response a tool call worth 400 tokens, every
 * 5th a `new_context`. Prints `FILE <path>` once the file exists, `STEP <n>` at each provider
 * request and `SETTLED <status>` when the run is over; then stays alive until the parent SIGKILLs it.
 * Args: <agentDir> <budget>.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { allExtensions, fakeJscpd } from "./extensions.js";

const agentDir = process.argv[2] as string;
const budget = Number(process.argv[3]);
mkdirSync(join(agentDir, "pi-lifecycle"), { recursive: true });
// The goal reads the same file again and again on purpose (a budget test): the response limit and
// the stuck detector's rules are off, so only the token budget stops it.
writeFileSync(
	join(agentDir, "pi-lifecycle", "pi-goal.json"),
	JSON.stringify({ automaticTurns: null, repeatedActions: null, repeatedErrors: null, cycleActions: null }),
);
console.error = () => {};
const h = await createScriptedSession({
	session: "file",
	recorderPosition: "first",
	extensions: allExtensions({ agentDir, jscpd: { executable: fakeJscpd(agentDir) } }),
	responses: Array.from({ length: 200 }, (_, i) => () => {
		if (h.sessionFile && existsSync(h.sessionFile)) process.stdout.write(`FILE ${h.sessionFile}\n`);
		process.stdout.write(`STEP ${i}\n`);
		return i % 5 === 4
			? toolCall("new_context", { handoff: `step ${i}` })
			: toolCall("read", { path: "notes.txt" });
	}),
});
h.setUsage({ input: 400, output: 0, totalTokens: 400 });
await h.prompt(`/goal --tokens ${budget} read notes.txt again and again`);
for (let i = 0; i < 6; i++) {
	await h.session.waitForIdle();
	await new Promise((resolve) => setImmediate(resolve));
}
const states = h.session.sessionManager
	.getBranch()
	.filter((e) => e.type === "custom" && e.customType === "pi-goal/state") as {
	data?: { state?: { goal?: { status?: string } } };
}[];
process.stdout.write(`FILE ${h.sessionFile}\n`);
process.stdout.write(`SETTLED ${states.at(-1)?.data?.state?.goal?.status}\n`);
setInterval(() => {}, 1_000);
