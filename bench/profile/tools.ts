/**
 * Per-request cost of tool declarations in Pi's agent loop: pi-ai's `toToolDeclaration` and
 * `declarationsEqual` per tool, and `getToolStateChanges` for the built-in tools vs all tools with
 * the three extensions (what pi-agent-core's `declareToolChanges` runs before every request).
 *
 *   node profile/tools.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-profile-agent-"));

type Tool = Parameters<typeof import("@earendil-works/pi-ai").toToolDeclaration>[0];
const { getToolStateChanges, toToolDeclaration, declarationsEqual } = await import("@earendil-works/pi-ai");
const { parseVariant, variantFactories } = await import("./variants.ts");
const { session } = await import("../lib/extensions.ts");

const h = await session(variantFactories(parseVariant("all")), {});
const tools = (h.session as unknown as { agent: { state: { tools: Tool[] } } }).agent.state.tools;
const time = (label: string, n: number, f: () => void) => {
	for (let i = 0; i < 500; i++) f();
	const t = performance.now();
	for (let i = 0; i < n; i++) f();
	console.log(label.padEnd(44), `${(((performance.now() - t) / n) * 1000).toFixed(2)} µs`);
};
for (const tool of tools) {
	const declaration = toToolDeclaration(tool);
	console.log(`${tool.name}: ${JSON.stringify(tool.parameters).length} schema chars`);
	time(`  toToolDeclaration ${tool.name}`, 5000, () => toToolDeclaration(tool));
	time(`  declarationsEqual ${tool.name}`, 5000, () => declarationsEqual(declaration, tool));
}
const builtIn = tools.filter((t) => ["read", "bash", "edit", "write"].includes(t.name));
const builtInDeclared = builtIn.map(toToolDeclaration);
const allDeclared = tools.map(toToolDeclaration);
time(`getToolStateChanges, built-in (${builtIn.length})`, 3000, () =>
	getToolStateChanges(builtInDeclared, builtIn.map(toToolDeclaration)),
);
time(`getToolStateChanges, with extensions (${tools.length})`, 3000, () =>
	getToolStateChanges(allDeclared, tools.map(toToolDeclaration)),
);
await h.dispose();
