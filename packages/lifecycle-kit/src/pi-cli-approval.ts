/**
 * `--approve` as the `pi` CLI reads it. Only the `pi` command line counts: a kit loaded by any other
 * host (an SDK program, a test runner, an editor plugin) must not take that host's own `-a` for the
 * user's answer to "trust this project?".
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "@earendil-works/pi-coding-agent";

/** The names Pi has been published under (the CLI's package). */
const PI_PACKAGES = new Set(["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"]);

/**
 * Pi's command-line entry points besides `bin.pi` (1.3.0–1.6.0): each runs Pi's `main` on its own
 * `argv.slice(2)`. `dist/cli.js` is what Pi's own `RpcClient` starts (`node dist/cli.js --mode rpc …`).
 */
const PI_CLI_ENTRIES = [
	"dist/cli.js",
	"dist/rpc-entry.js",
	"dist/bundle/cli.js",
	"dist/bundle/rpc-entry.js",
	"dist/bun/cli.js",
];

/**
 * Whether `script` (a process's `argv[1]`) is a `pi` CLI: by real path, the `bin.pi` or another
 * command-line entry point ({@link PI_CLI_ENTRIES}) of the Pi package that contains it. Found from the
 * script itself, not from the Pi copy this kit imports (an install can give the kit its own copy of
 * its peer), so any Pi version hosting the kit is recognised.
 */
export function isPiCli(script: string | undefined): boolean {
	if (!script) return false;
	try {
		const real = realpathSync(script);
		let dir = dirname(real);
		for (let depth = 0; depth < 6; depth++) {
			const manifest = readManifest(dir);
			// The package root (a nameless package.json such as `{"type":"module"}` is not one).
			if (manifest?.name !== undefined) {
				if (!PI_PACKAGES.has(String(manifest.name))) return false;
				const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.pi;
				const entries = typeof bin === "string" ? [bin, ...PI_CLI_ENTRIES] : PI_CLI_ENTRIES;
				return entries.some((entry) => realEntry(join(dir, entry)) === real);
			}
			const parent = dirname(dir);
			if (parent === dir) return false;
			dir = parent;
		}
		return false;
	} catch {
		return false;
	}
}

function realEntry(path: string): string | undefined {
	try {
		return realpathSync(path);
	} catch {
		return undefined;
	}
}

function readManifest(dir: string): { name?: unknown; bin?: string | Record<string, string> } | undefined {
	try {
		return JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
	} catch {
		return undefined;
	}
}

/**
 * The project-trust override on the `pi` CLI's own command line: true for `--approve`/`-a`, false
 * for `--no-approve`/`-na` (the last one wins), undefined when there is none or when the process is
 * not the `pi` CLI. Parsed by Pi's own `parseArgs`, so an `-a` that is another option's value
 * (`--model -a`) or follows `--` is not an approval, exactly as in Pi.
 */
export function piCliApproval(argv: readonly string[]): boolean | undefined {
	if (!isPiCli(argv[1])) return undefined;
	try {
		return parseArgs(argv.slice(2)).projectTrustOverride;
	} catch {
		return undefined;
	}
}
