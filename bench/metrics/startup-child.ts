/**
 * Child process for the startup figure: preloads the host packages (Pi has them loaded before any
 * extension), then times `import(<package>)` + calling its factory with a stub `pi` that records
 * registrations. Prints one JSON line.
 */
import { performance } from "node:perf_hooks";

await import("@earendil-works/pi-coding-agent");
await import("@earendil-works/pi-ai");
await import("@earendil-works/pi-tui");
await import("typebox");

const name = process.argv[2] as string;
const registrations: string[] = [];
const record =
	(kind: string) =>
	(...args: unknown[]) => {
		registrations.push(
			`${kind}:${typeof args[0] === "string" ? args[0] : ((args[0] as { name?: string })?.name ?? "")}`,
		);
		return () => undefined;
	};
const pi = new Proxy(
	{
		on: record("on"),
		registerTool: record("tool"),
		registerCommand: record("command"),
		registerMessageRenderer: record("renderer"),
		registerShortcut: record("shortcut"),
		registerFlag: record("flag"),
		events: { on: record("bus"), emit: () => undefined },
		getSettings: () => ({}),
	},
	{
		get(target, prop) {
			return prop in target ? target[prop as keyof typeof target] : record(String(prop));
		},
	},
);
const start = performance.now();
const mod = (await import(name)) as { default: (pi: unknown) => void };
const imported = performance.now();
mod.default(pi);
const end = performance.now();
process.stdout.write(
	`${JSON.stringify({ importMs: imported - start, factoryMs: end - imported, totalMs: end - start, registrations: registrations.length })}\n`,
);
