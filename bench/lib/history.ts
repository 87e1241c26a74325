/** A session file with N prior entries (user / assistant tool call / tool result / assistant answer). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "./project.ts";

const usage = (input: number) => ({
	input,
	output: 20,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: input + 20,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

/** Writes a session file with about `entries` prior message entries; returns its path. */
export function historyFile(cwd: string, entries: number): string {
	const sm = SessionManager.inMemory(cwd);
	const base = { api: "faux", provider: "faux", model: "faux-model" } as const;
	let n = 0;
	for (let turn = 0; n < entries; turn++) {
		const t = Date.now() - 1_000_000 + turn;
		sm.appendMessage({
			role: "user",
			content: [{ type: "text", text: `Earlier task ${turn}.` }],
			timestamp: t,
		});
		sm.appendMessage({
			...base,
			role: "assistant",
			content: [{ type: "toolCall", id: `h${turn}`, name: "read", arguments: { path: "note.txt" } }],
			stopReason: "toolUse",
			usage: usage(100 + turn),
			timestamp: t,
		});
		sm.appendMessage({
			role: "toolResult",
			toolCallId: `h${turn}`,
			toolName: "read",
			content: [{ type: "text", text: "A short note." }],
			isError: false,
			timestamp: t,
		});
		sm.appendMessage({
			...base,
			role: "assistant",
			content: [{ type: "text", text: `Done ${turn}.` }],
			stopReason: "stop",
			usage: usage(120 + turn),
			timestamp: t,
		});
		n += 4;
	}
	const file = join(tempDir("history"), "session.jsonl");
	const lines = [sm.getHeader(), ...sm.getEntries()].map((e) => JSON.stringify(e));
	writeFileSync(file, `${lines.join("\n")}\n`);
	return file;
}
