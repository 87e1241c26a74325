/**
 * Extension settings, stored the same way by every pi-lifecycle package:
 *
 * - global: `<agentDir>/pi-lifecycle/<name>.json` (agentDir is `~/.pi/agent` or
 *   `$PI_CODING_AGENT_DIR`);
 * - project: `<cwd>/.pi/pi-lifecycle/<name>.json`, read only when Pi trusts the project, and only
 *   when its real path (symlinks resolved) stays inside the project; an untrusted project's file
 *   is never read, and its presence is reported once as a warning (docs/security.md);
 * - project values override global values, which override the defaults.
 *
 * A file is accepted or rejected whole: an unreadable, oversized, malformed or invalid file is
 * ignored with one warning, and it is never overwritten. Parsing is separate from I/O so the rules
 * are unit-testable.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describeWriteError } from "./local-fault.js";
import { isInsideReal } from "./process-policy.js";
import { untrustedAdvice } from "./project-trust.js";

/** Largest settings file read, in bytes. */
export const MAX_SETTINGS_BYTES = 64 * 1024;

/** A validation result: the accepted fields, or why the file is rejected. */
export type SettingsValidation<T> =
	| { readonly ok: true; readonly value: Partial<T> }
	| { readonly ok: false; readonly issues: readonly string[] };

/** How one package's settings look. */
export interface SettingsSpec<T extends object> {
	/** File stem, e.g. `pi-goal` for `pi-goal.json`. */
	readonly name: string;
	/** Frozen defaults. */
	readonly defaults: Readonly<T>;
	/** Validates a parsed JSON value. Unknown keys should be rejected so typos are noticed. */
	readonly validate: (raw: unknown) => SettingsValidation<T>;
}

/** Where settings files live for one session. */
export interface SettingsLocation {
	/** Pi's agent directory (`getAgentDir()`). */
	readonly agentDir: string;
	/** The project directory (`ctx.cwd`). */
	readonly cwd: string;
	/** `isExplicitlyTrusted(ctx)`: project files are ignored otherwise. */
	readonly projectTrusted: boolean;
}

/** Which file a setting came from. */
export type SettingsScope = "global" | "project";

/** What happened to one settings file. */
export interface SettingsSource {
	readonly scope: SettingsScope;
	readonly path: string;
	readonly status: "loaded" | "missing" | "invalid" | "untrusted" | "outside";
	/** Why the file was rejected (status `invalid`). */
	readonly issues?: readonly string[];
}

/** Effective settings plus where they came from. */
export interface LoadedSettings<T> {
	readonly value: Readonly<T>;
	readonly sources: readonly SettingsSource[];
	/** One line per rejected file, ready to show once. */
	readonly warnings: readonly string[];
}

/** The two file paths for a package. */
export function settingsPaths(name: string, location: Pick<SettingsLocation, "agentDir" | "cwd">) {
	return {
		global: join(location.agentDir, "pi-lifecycle", `${name}.json`),
		project: join(location.cwd, ".pi", "pi-lifecycle", `${name}.json`),
	} as const;
}

/** Parses file text (pure). `undefined` text means the file does not exist. */
export function parseSettingsText<T extends object>(
	spec: SettingsSpec<T>,
	text: string | undefined,
): { status: "missing" } | { status: "loaded"; value: Partial<T> } | { status: "invalid"; issues: string[] } {
	if (text === undefined) return { status: "missing" };
	if (text.length > MAX_SETTINGS_BYTES)
		return { status: "invalid", issues: [`larger than ${MAX_SETTINGS_BYTES} bytes`] };
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		return { status: "invalid", issues: [`not valid JSON (${(error as Error).message})`] };
	}
	let result: SettingsValidation<T>;
	try {
		result = spec.validate(raw);
	} catch (error) {
		return { status: "invalid", issues: [`could not be validated (${(error as Error).message})`] };
	}
	return result.ok
		? { status: "loaded", value: result.value }
		: { status: "invalid", issues: [...result.issues] };
}

function fileExists(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

function readBounded(path: string): string | undefined {
	try {
		const stat = statSync(path);
		if (!stat.isFile()) return undefined;
		if (stat.size > MAX_SETTINGS_BYTES) return "x".repeat(MAX_SETTINGS_BYTES + 1);
		return readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
}

/** Loads effective settings for one session. Never throws. */
export function loadSettings<T extends object>(
	spec: SettingsSpec<T>,
	location: SettingsLocation,
): LoadedSettings<T> {
	const paths = settingsPaths(spec.name, location);
	const sources: SettingsSource[] = [];
	const warnings: string[] = [];
	let value: T = { ...spec.defaults };
	const layers: [SettingsScope, string][] = [
		["global", paths.global],
		["project", paths.project],
	];
	for (const [scope, path] of layers) {
		if (scope === "project" && !location.projectTrusted) {
			// An untrusted project's file is never read, only noticed (and said once, so a user who
			// wonders why it has no effect finds out).
			const exists = fileExists(path);
			sources.push({ scope, path, status: exists ? "untrusted" : "missing" });
			if (exists)
				warnings.push(
					`${spec.name}: ignoring ${path}: the project is not trusted (${untrustedAdvice(location.agentDir, location.cwd)})`,
				);
			continue;
		}
		if (scope === "project" && !isInsideReal(location.cwd, path)) {
			// A trusted project's settings path still cannot lead outside the project.
			sources.push({ scope, path, status: "outside" });
			warnings.push(`${spec.name}: ignoring ${path}: it resolves outside the project`);
			continue;
		}
		const parsed = parseSettingsText(spec, readBounded(path));
		if (parsed.status === "loaded") {
			value = { ...value, ...parsed.value };
			sources.push({ scope, path, status: "loaded" });
		} else if (parsed.status === "invalid") {
			sources.push({ scope, path, status: "invalid", issues: parsed.issues });
			warnings.push(`${spec.name}: ignoring ${path}: ${parsed.issues.join("; ")}`);
		} else {
			sources.push({ scope, path, status: "missing" });
		}
	}
	return { value, sources, warnings };
}

/** The outcome of {@link saveSettings}. */
export type SaveResult =
	| { readonly ok: true; readonly path: string }
	| { readonly ok: false; readonly error: string };

/**
 * Merges `patch` into one scope's file and writes it atomically (temp file + rename). Refuses to
 * overwrite a file that exists but is invalid, so a user's hand-edited file is never lost. Never
 * throws: failures come back as `{ ok: false, error }`.
 */
export function saveSettings<T extends object>(
	spec: SettingsSpec<T>,
	location: Pick<SettingsLocation, "agentDir" | "cwd">,
	scope: SettingsScope,
	patch: Partial<T>,
): SaveResult {
	const path = settingsPaths(spec.name, location)[scope];
	if (scope === "project" && !isInsideReal(location.cwd, path)) {
		return { ok: false, error: `${path} resolves outside the project; not written` };
	}
	const current = parseSettingsText(spec, readBounded(path));
	if (current.status === "invalid") {
		return { ok: false, error: `${path} is invalid (${current.issues.join("; ")}); fix or remove it first` };
	}
	const merged = { ...(current.status === "loaded" ? current.value : {}), ...patch };
	let check: SettingsValidation<T>;
	try {
		check = spec.validate(merged);
	} catch (error) {
		return { ok: false, error: `could not be validated (${(error as Error).message})` };
	}
	if (!check.ok) return { ok: false, error: check.issues.join("; ") };
	const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
	try {
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(temp, `${JSON.stringify(merged, null, "\t")}\n`, "utf8");
		renameSync(temp, path);
		return { ok: true, path };
	} catch (error) {
		rmSync(temp, { force: true });
		const places = [
			{ label: "Pi's agent folder", dir: location.agentDir },
			{ label: "the project", dir: location.cwd },
		];
		return { ok: false, error: describeWriteError(error, places, temp) };
	}
}

/** Small validators for {@link SettingsSpec.validate}. Each returns an issue string or undefined. */
export const check = {
	/** Rejects keys not in `allowed`. */
	knownKeys(raw: Record<string, unknown>, allowed: readonly string[]): string[] {
		return Object.keys(raw)
			.filter((key) => !allowed.includes(key))
			.map((key) => `unknown setting "${key}"`);
	},
	/** A plain JSON object. */
	isObject(raw: unknown): raw is Record<string, unknown> {
		return typeof raw === "object" && raw !== null && !Array.isArray(raw);
	},
	boolean(key: string, value: unknown): string | undefined {
		return typeof value === "boolean" ? undefined : `"${key}" must be true or false`;
	},
	integer(key: string, value: unknown, min: number, max: number): string | undefined {
		return Number.isInteger(value) && (value as number) >= min && (value as number) <= max
			? undefined
			: `"${key}" must be an integer from ${min} to ${max}`;
	},
} as const;
