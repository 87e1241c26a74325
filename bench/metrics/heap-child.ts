/**
 * Child process for the heap figure (run with --expose-gc): a session with all three extensions or
 * none runs `turns` tool-call turns; prints heapUsed after full GCs, with the session still open.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-agent-"));
const { allExtensions, session } = await import("../lib/extensions.ts");
const { smallProject } = await import("../lib/project.ts");
const { runTurns } = await import("../lib/turns.ts");

const withExtensions = process.argv[2] === "all";
const turns = Number(process.argv[3] ?? 1000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const collect = () => {
	for (let i = 0; i < 4; i++) gc();
	return process.memoryUsage().heapUsed;
};
type Controller = Parameters<NonNullable<Parameters<typeof allExtensions>[0]>>[0];
let controller: Controller | undefined;
const h = await session(withExtensions ? allExtensions((c) => (controller = c)) : [], {
	cwd: smallProject(),
});
await controller?.settled();
const start = collect();
await runTurns(h, turns);
await controller?.settled();
await new Promise((resolve) => setTimeout(resolve, 50));
const end = collect();
process.stdout.write(
	`${JSON.stringify({ start, end, entries: h.session.sessionManager.getEntries().length })}\n`,
);
await h.dispose();
