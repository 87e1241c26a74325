/**
 * Child process of durability.test.ts: a goal-plus-reset run with all three extensions that writes
 * a real session file, repeated until the parent SIGKILLs it. Prints `FILE <path>` once the file
 * exists and `STEP <n>` before each command. Args: <agentDir>.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { allExtensions, fakeJscpd } from "./extensions.js";
import { type Command, run } from "./schedule.js";

const PATTERN: readonly Command[] = [
	"goal",
	"new_context",
	"user",
	"threshold",
	"new_context",
	"reset-cmd",
	"user",
	"complete",
	"goal",
	"overflow",
	"new_context",
];

const agentDir = process.argv[2] as string;
mkdirSync(join(agentDir, "pi-lifecycle"), { recursive: true });
writeFileSync(join(agentDir, "pi-lifecycle", "pi-goal.json"), JSON.stringify({ automaticTurns: 3 }));
console.error = () => {};
const h = await createScriptedSession({
	session: "file",
	extensions: allExtensions({ agentDir, jscpd: { executable: fakeJscpd(agentDir) } }),
});
let announced = false;
for (let step = 0; step < 10_000; step++) {
	if (!announced && h.sessionFile && existsSync(h.sessionFile)) {
		process.stdout.write(`FILE ${h.sessionFile}\n`);
		announced = true;
	}
	process.stdout.write(`STEP ${step}\n`);
	await run(h, PATTERN[step % PATTERN.length] as Command, step);
}
