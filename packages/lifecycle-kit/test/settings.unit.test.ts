import {
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	check,
	loadSettings,
	MAX_SETTINGS_BYTES,
	parseSettingsText,
	type SettingsSpec,
	type SettingsValidation,
	saveSettings,
	settingsPaths,
} from "../src/settings.js";
import { OVERRIDDEN_NOTE, saveAndReload } from "../src/settings-change.js";

interface Demo {
	enabled: boolean;
	limit: number;
}

const spec: SettingsSpec<Demo> = {
	name: "demo",
	defaults: Object.freeze({ enabled: true, limit: 10 }),
	validate(raw): SettingsValidation<Demo> {
		if (!check.isObject(raw)) return { ok: false, issues: ["must be a JSON object"] };
		const issues = [
			...check.knownKeys(raw, ["enabled", "limit"]),
			...(raw.enabled === undefined ? [] : [check.boolean("enabled", raw.enabled)]),
			...(raw.limit === undefined ? [] : [check.integer("limit", raw.limit, 1, 100)]),
		].filter((issue): issue is string => issue !== undefined);
		return issues.length > 0 ? { ok: false, issues } : { ok: true, value: raw as Partial<Demo> };
	},
};

let root: string;
let agentDir: string;
let cwd: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "kit-settings-"));
	agentDir = join(root, "agent");
	cwd = join(root, "project");
	mkdirSync(cwd, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

describe("settingsPaths", () => {
	it("global under <agentDir>/pi-lifecycle, project under <cwd>/.pi/pi-lifecycle", () => {
		expect(settingsPaths("demo", { agentDir: "/a", cwd: "/p" })).toEqual({
			global: join("/a", "pi-lifecycle", "demo.json"),
			project: join("/p", ".pi", "pi-lifecycle", "demo.json"),
		});
	});
});

describe("parseSettingsText (pure)", () => {
	it("undefined text is a missing file", () => {
		expect(parseSettingsText(spec, undefined)).toEqual({ status: "missing" });
	});

	it("rejects malformed JSON, invalid values, unknown keys and oversized text", () => {
		expect(parseSettingsText(spec, "{").status).toBe("invalid");
		expect(parseSettingsText(spec, '{"limit": 0}')).toEqual({
			status: "invalid",
			issues: ['"limit" must be an integer from 1 to 100'],
		});
		expect(parseSettingsText(spec, '{"limt": 5}')).toEqual({
			status: "invalid",
			issues: ['unknown setting "limt"'],
		});
		expect(parseSettingsText(spec, " ".repeat(MAX_SETTINGS_BYTES + 1)).status).toBe("invalid");
	});

	it("a validator that throws rejects the file instead of throwing", () => {
		const throwing: SettingsSpec<Demo> = {
			...spec,
			validate: () => {
				throw new Error("bug");
			},
		};
		expect(parseSettingsText(throwing, "{}")).toEqual({
			status: "invalid",
			issues: ["could not be validated (bug)"],
		});
	});
});

describe("loadSettings", () => {
	const paths = () => settingsPaths("demo", { agentDir, cwd });

	it("defaults when no file exists", () => {
		const loaded = loadSettings(spec, { agentDir, cwd, projectTrusted: true });
		expect(loaded.value).toEqual({ enabled: true, limit: 10 });
		expect(loaded.sources.map((s) => s.status)).toEqual(["missing", "missing"]);
		expect(loaded.warnings).toEqual([]);
	});

	it("layering: project overrides global, which overrides the defaults", () => {
		write(paths().global, '{"enabled": false, "limit": 20}');
		write(paths().project, '{"limit": 30}');
		const loaded = loadSettings(spec, { agentDir, cwd, projectTrusted: true });
		expect(loaded.value).toEqual({ enabled: false, limit: 30 });
		expect(loaded.sources.map((s) => [s.scope, s.status])).toEqual([
			["global", "loaded"],
			["project", "loaded"],
		]);
	});

	it("an untrusted project's file is ignored (and reported as untrusted)", () => {
		write(paths().global, '{"limit": 20}');
		write(paths().project, '{"limit": 30}');
		const loaded = loadSettings(spec, { agentDir, cwd, projectTrusted: false });
		expect(loaded.value.limit).toBe(20);
		expect(loaded.sources[1]).toMatchObject({ scope: "project", status: "untrusted" });
		expect(loaded.warnings).toEqual([
			`demo: ignoring ${paths().project}: the project is not trusted (/trust it, or start pi with --approve)`,
		]);
	});

	it("an untrusted project's invalid file is never read: the only warning says it is untrusted", () => {
		write(paths().project, "{ not json");
		const loaded = loadSettings(spec, { agentDir, cwd, projectTrusted: false });
		expect(loaded.warnings).toEqual([
			`demo: ignoring ${paths().project}: the project is not trusted (/trust it, or start pi with --approve)`,
		]);
	});

	it("a trusted project's settings file that is a symlink leaving the project is not read", () => {
		const outside = join(root, "outside.json");
		write(outside, '{"limit": 77}');
		mkdirSync(dirname(paths().project), { recursive: true });
		symlinkSync(outside, paths().project);
		const loaded = loadSettings(spec, { agentDir, cwd, projectTrusted: true });
		expect(loaded.value.limit).toBe(10);
		expect(loaded.sources[1]).toMatchObject({ scope: "project", status: "outside" });
		expect(loaded.warnings[0]).toMatch(/resolves outside the project/);
	});

	it("a trusted project's .pi directory that is a symlink leaving the project is neither read nor written", () => {
		const outsideDir = join(root, "elsewhere");
		write(join(outsideDir, "pi-lifecycle", "demo.json"), '{"limit": 55}');
		symlinkSync(outsideDir, join(cwd, ".pi"));
		expect(loadSettings(spec, { agentDir, cwd, projectTrusted: true }).value.limit).toBe(10);
		const saved = saveSettings(spec, { agentDir, cwd }, "project", { limit: 3 });
		expect(saved.ok).toBe(false);
		expect(readFileSync(join(outsideDir, "pi-lifecycle", "demo.json"), "utf8")).toBe('{"limit": 55}');
	});

	it("an invalid file is rejected whole, with one warning, and the other layers still apply", () => {
		write(paths().global, '{"limit": 20}');
		write(paths().project, '{"enabled": false, "limit": 500, "extra": 1}');
		const loaded = loadSettings(spec, { agentDir, cwd, projectTrusted: true });
		// Nothing from the invalid project file applies, not even its valid "enabled".
		expect(loaded.value).toEqual({ enabled: true, limit: 20 });
		expect(loaded.warnings).toHaveLength(1);
		expect(loaded.warnings[0]).toContain(paths().project);
		expect(loaded.warnings[0]).toContain('"limit" must be an integer');
		expect(loaded.warnings[0]).toContain('unknown setting "extra"');
		expect(loaded.sources[1]).toMatchObject({ status: "invalid" });
	});

	it("an oversized file is rejected without reading it whole", () => {
		write(paths().global, `{"limit": 5, "pad": "${"x".repeat(MAX_SETTINGS_BYTES)}"}`);
		const loaded = loadSettings(spec, { agentDir, cwd, projectTrusted: true });
		expect(loaded.value.limit).toBe(10);
		expect(loaded.warnings[0]).toContain(`larger than ${MAX_SETTINGS_BYTES} bytes`);
	});

	it("a directory where the file should be counts as missing", () => {
		mkdirSync(paths().global, { recursive: true });
		expect(loadSettings(spec, { agentDir, cwd, projectTrusted: true }).sources[0]?.status).toBe("missing");
	});
});

describe("saveSettings", () => {
	const paths = () => settingsPaths("demo", { agentDir, cwd });

	it("creates the directory and writes the patch", () => {
		const result = saveSettings(spec, { agentDir, cwd }, "global", { limit: 42 });
		expect(result).toEqual({ ok: true, path: paths().global });
		expect(JSON.parse(readFileSync(paths().global, "utf8"))).toEqual({ limit: 42 });
	});

	it("merges the patch into the existing file", () => {
		write(paths().project, '{"enabled": false}');
		saveSettings(spec, { agentDir, cwd }, "project", { limit: 7 });
		expect(JSON.parse(readFileSync(paths().project, "utf8"))).toEqual({ enabled: false, limit: 7 });
	});

	it("refuses to overwrite an invalid file, leaving it byte-for-byte intact", () => {
		const text = '{"limit": "lots", // my notes\n}';
		write(paths().global, text);
		const result = saveSettings(spec, { agentDir, cwd }, "global", { limit: 5 });
		expect(result.ok).toBe(false);
		expect(!result.ok && result.error).toContain("fix or remove it first");
		expect(readFileSync(paths().global, "utf8")).toBe(text);
	});

	it("refuses an invalid patch without writing", () => {
		const result = saveSettings(spec, { agentDir, cwd }, "global", { limit: 1000 });
		expect(result.ok).toBe(false);
		expect(readdirSync(root)).not.toContain("agent");
	});

	it("atomic write: no temp file is left behind, and the target is replaced in one step", () => {
		write(paths().global, '{"limit": 3}');
		expect(saveSettings(spec, { agentDir, cwd }, "global", { enabled: false }).ok).toBe(true);
		expect(readdirSync(dirname(paths().global))).toEqual(["demo.json"]);
	});

	it("a failed write reports the error and leaves no temp file", () => {
		// The target path is a directory: rename onto it fails.
		mkdirSync(join(paths().global, "occupied"), { recursive: true });
		const result = saveSettings(spec, { agentDir, cwd }, "global", { limit: 2 });
		expect(result.ok).toBe(false);
		expect(readdirSync(dirname(paths().global))).toEqual(["demo.json"]);
	});
});

describe("saveAndReload (settings-change.ts)", () => {
	it("saves to the global file, reloads, and names the keys a trusted project file overrides", () => {
		write(settingsPaths("demo", { agentDir, cwd }).project, '{"enabled": false}');
		const change = saveAndReload(spec, { agentDir, cwd, projectTrusted: true }, { enabled: true, limit: 7 });
		expect(change.ok).toBe(true);
		if (!change.ok) return;
		expect(change.path).toBe(settingsPaths("demo", { agentDir, cwd }).global);
		expect(JSON.parse(readFileSync(change.path, "utf8"))).toEqual({ enabled: true, limit: 7 });
		expect(change.loaded.value).toEqual({ enabled: false, limit: 7 });
		expect(change.overridden).toEqual(["enabled"]);
		expect(OVERRIDDEN_NOTE).toBe("a trusted project settings file overrides the saved value");
	});

	it("an untrusted project's file overrides nothing", () => {
		write(settingsPaths("demo", { agentDir, cwd }).project, '{"enabled": false}');
		const change = saveAndReload(spec, { agentDir, cwd, projectTrusted: false }, { enabled: true });
		expect(change.ok && change.overridden).toEqual([]);
	});

	it("a failed save reloads nothing and reports why", () => {
		write(settingsPaths("demo", { agentDir, cwd }).global, "{ not json");
		const change = saveAndReload(spec, { agentDir, cwd, projectTrusted: true }, { enabled: true });
		expect(change).toMatchObject({ ok: false });
		expect(!change.ok && change.error).toMatch(/is invalid/);
	});
});
