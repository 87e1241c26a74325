/**
 * Bytes of what Pi sends per request with each variant: the whole context and its leading system
 * message, which carries every tool declaration (the wall-time floor in bench/README.md scales with
 * them). One scripted prompt per variant.
 *
 *   node profile/declarations.ts [spec …]     (default: none minimal-tools all/drop:*:* all)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-profile-agent-"));
const { parseVariant, variantFactories } = await import("./variants.ts");
const { session } = await import("../lib/extensions.ts");
const { reply } = await import("@pi-lifecycle/lifecycle-kit/testing");

type Context = { messages: { role: string; toolsAdded?: { name: string }[] }[] };
const specs = process.argv.slice(2);
for (const spec of specs.length > 0 ? specs : ["none", "minimal-tools", "all/drop:*:*", "all"]) {
	const h = await session(variantFactories(parseVariant(spec)), {});
	let line = "";
	h.faux.appendResponses([
		(context: Context) => {
			const system = context.messages.filter((m) => m.role === "system");
			const tools = system.flatMap((m) => m.toolsAdded ?? []);
			line = `context ${JSON.stringify(context).length} B · system message ${JSON.stringify(system).length} B · ${tools.length} tools, declarations ${JSON.stringify(tools).length} B`;
			return reply("ok");
		},
	]);
	await h.prompt("hi");
	console.log(spec.padEnd(16), line);
	await h.dispose();
}
