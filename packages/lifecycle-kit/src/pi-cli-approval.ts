/**
 * `--approve` as the `pi` CLI reads it. Only the `pi` command line counts: a kit loaded by any other
 * host (an SDK program, a test runner, an editor plugin) must not take that host's own `-a` for the
 * user's answer to "trust this project?".
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { getPackageDir, parseArgs } from "@earendil-works/pi-coding-agent";

/** The real path of the running Pi's `pi` bin (its package.json `bin.pi`), or undefined. */
function piCliEntry(): string | undefined {
	try {
		const packageDir = getPackageDir();
		const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
			bin?: string | Record<string, string>;
		};
		const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.pi;
		return bin ? realpathSync(join(packageDir, bin)) : undefined;
	} catch {
		return undefined;
	}
}

/** Whether `script` (a process's `argv[1]`) is the running Pi's `pi` CLI, by real path. */
export function isPiCli(script: string | undefined, cliEntry: string | undefined = piCliEntry()): boolean {
	if (!script || !cliEntry) return false;
	try {
		return realpathSync(script) === cliEntry;
	} catch {
		return false;
	}
}

/**
 * The project-trust override on the `pi` CLI's own command line: true for `--approve`/`-a`, false
 * for `--no-approve`/`-na` (the last one wins), undefined when there is none or when the process is
 * not the `pi` CLI. Parsed by Pi's own `parseArgs`, so an `-a` that is another option's value
 * (`--model -a`) or follows `--` is not an approval, exactly as in Pi.
 */
export function piCliApproval(argv: readonly string[], cliEntry?: string): boolean | undefined {
	if (!isPiCli(argv[1], cliEntry ?? piCliEntry())) return undefined;
	try {
		return parseArgs(argv.slice(2)).projectTrustOverride;
	} catch {
		return undefined;
	}
}
