/**
 * Integration (slow: two real jscpd scans of 20,000 files, about a minute each on 2 shared cores):
 * a large legacy codebase with 10,000 pre-existing clone groups. The baseline is accepted (not
 * "partial"), the automatic checkpoint runs, and only the session's own new copy is reported —
 * not the refactor that removed an old copy and re-paired the rest.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { customMessages, hasBaseline, type JscpdSession, jscpdSession, remove, tempDir } from "./helpers.js";

const FILES = 20_000;
const GROUPS = FILES / 2;
const TIMEOUT = 600_000;
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
}, TIMEOUT);

/** Block `i`: a function that appears in a<i>.ts and b<i>.ts (one clone group each). */
function block(i: number): string {
	const body = Array.from(
		{ length: 8 },
		(_, j) => `\tconst v${j} = input.field${i}_${j} * ${i + j} + offset${j};`,
	);
	return `export function f${i}(input: any, offset0 = 0, offset1 = 1, offset2 = 2, offset3 = 3, offset4 = 4, offset5 = 5, offset6 = 6, offset7 = 7) {\n${body.join("\n")}\n\treturn v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7;\n}\n`;
}

function path(i: number, side: "a" | "b"): string {
	return `src/m${Math.floor(i / 500)}/${side}${i}.ts`;
}

describe("monorepo scale (integration)", () => {
	it(
		"20,000 files and 10,000 pre-existing groups: accepted baseline, and only the new copy is reported",
		async () => {
			const root = tempDir("pi-jscpd-scale-");
			const agentDir = tempDir("pi-jscpd-agent-");
			dirs.push(root, agentDir);
			for (let i = 0; i < GROUPS; i++) {
				mkdirSync(join(root, `src/m${Math.floor(i / 500)}`), { recursive: true });
				writeFileSync(join(root, path(i, "a")), block(i));
				writeFileSync(join(root, path(i, "b")), block(i));
			}
			// A vendored copy of everything (ignored outside git by default).
			mkdirSync(join(root, "node_modules/legacy"), { recursive: true });
			writeFileSync(join(root, "node_modules/legacy/index.ts"), block(7));
			mkdirSync(join(agentDir, "pi-lifecycle"), { recursive: true });
			writeFileSync(join(agentDir, "pi-lifecycle/pi-jscpd.json"), JSON.stringify({ timeoutMs: 300_000 }));
			const s = await jscpdSession({ project: root, agentDir });
			h = s;
			await vi.waitFor(() => expect(hasBaseline(s)).toBe(true), { timeout: TIMEOUT, interval: 200 });
			expect(s.controller.status().baseline).toMatchObject({ status: "accepted", groups: GROUPS });
			s.script(
				// The refactor: block 3 leaves a3.ts, so jscpd pairs b3.ts with nothing; block 5 is copied.
				toolCall("write", { path: path(3, "a"), content: "export const refactored = true;\n" }),
				toolCall("write", { path: "src/new/copy.ts", content: block(5) }),
				reply("done"),
			);
			await s.prompt("refactor a3.ts and add a copy");
			await vi.waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined(), {
				timeout: TIMEOUT,
				interval: 200,
			});
			const messages = customMessages(s, "pi-jscpd/findings");
			expect(messages).toHaveLength(1);
			const findings = messages[0]?.details?.findings ?? [];
			expect(findings).toHaveLength(1);
			expect(findings[0]?.locations.map((l) => l.path)).toContain("src/new/copy.ts");
		},
		TIMEOUT * 2,
	);
});
