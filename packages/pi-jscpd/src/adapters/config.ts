/**
 * Settings: `enabled`, `timeoutMs`, `maxFindings` and the detection (`kinds`, `similarity`,
 * `minTokens`, `minLines`; kinds.ts), loaded through the kit from
 * `<agentDir>/pi-lifecycle/pi-jscpd.json` and (trusted projects only) `.pi/pi-lifecycle/pi-jscpd.json`.
 * Validation is strict: unknown keys or out-of-range values reject the whole file.
 */
import { check, type SettingsSpec, type SettingsValidation } from "@pi-lifecycle/lifecycle-kit";
import { CLONE_KINDS, type CloneKind, type Detection } from "../core/kinds.js";

/** Effective pi-jscpd settings. */
export interface JscpdSettings {
	/** Whether the automatic checkpoint runs (explicit commands work either way). */
	readonly enabled: boolean;
	/** Timeout of one jscpd process, in milliseconds. */
	readonly timeoutMs: number;
	/** Most findings shown in one checkpoint message or tool result. */
	readonly maxFindings: number;
	/** Clone kinds reported (kinds.ts). */
	readonly kinds: readonly CloneKind[];
	/** Least AST similarity of a near-copy (`similar`). */
	readonly similarity: number;
	/** jscpd `--min-tokens`; jscpd's default 50 (or a trusted project's `.jscpd.json`) when unset. */
	readonly minTokens?: number;
	/** jscpd `--min-lines`; jscpd's default 5 (or the project's config) when unset. */
	readonly minLines?: number;
}

/** Bounds for numeric settings. */
export const LIMITS = {
	timeoutMs: { min: 1_000, max: 600_000 },
	maxFindings: { min: 1, max: 20 },
	minTokens: { min: 10, max: 1_000 },
	minLines: { min: 2, max: 1_000 },
	similarity: { min: 0.5, max: 0.99 },
} as const;

/** Frozen defaults. */
export const DEFAULT_SETTINGS: Readonly<JscpdSettings> = Object.freeze({
	enabled: true,
	timeoutMs: 30_000,
	maxFindings: 5,
	kinds: Object.freeze(["exact", "renamed", "similar"] as CloneKind[]),
	similarity: 0.7,
});

const KEYS = ["enabled", "timeoutMs", "maxFindings", "kinds", "similarity", "minTokens", "minLines"] as const;

/** Validates one parsed settings file (pure). */
export function validateSettings(raw: unknown): SettingsValidation<JscpdSettings> {
	if (!check.isObject(raw)) return { ok: false, issues: ["must be a JSON object"] };
	const issues = check.knownKeys(raw, KEYS);
	const value: { -readonly [K in keyof JscpdSettings]?: JscpdSettings[K] } = {};
	if ("enabled" in raw) {
		const issue = check.boolean("enabled", raw.enabled);
		if (issue) issues.push(issue);
		else value.enabled = raw.enabled as boolean;
	}
	if ("kinds" in raw) {
		const issue = kindsIssue(raw.kinds);
		if (issue) issues.push(issue);
		else value.kinds = CLONE_KINDS.filter((kind) => (raw.kinds as string[]).includes(kind));
	}
	if ("similarity" in raw) {
		const { min, max } = LIMITS.similarity;
		const ok = typeof raw.similarity === "number" && raw.similarity >= min && raw.similarity <= max;
		if (!ok) issues.push(`"similarity" must be a number from ${min} to ${max} (e.g. 0.7)`);
		else value.similarity = raw.similarity as number;
	}
	for (const key of ["timeoutMs", "maxFindings", "minTokens", "minLines"] as const) {
		if (!(key in raw)) continue;
		const issue = check.integer(key, raw[key], LIMITS[key].min, LIMITS[key].max);
		if (issue) issues.push(issue);
		else value[key] = raw[key] as number;
	}
	return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

function kindsIssue(raw: unknown): string | undefined {
	const list = `a non-empty list of ${CLONE_KINDS.map((kind) => `"${kind}"`).join(", ")}`;
	if (!Array.isArray(raw) || raw.length === 0) return `"kinds" must be ${list}`;
	const unknown = raw.filter((kind) => !CLONE_KINDS.includes(kind as CloneKind));
	if (unknown.length > 0)
		return `"kinds" has unknown kind ${unknown.map((k) => JSON.stringify(k)).join(", ")}; use ${list}`;
	return undefined;
}

/**
 * The load warning of a `kinds` list without `exact` (undefined otherwise): jscpd reports an exact
 * copy only as exact, so such a setting reports no verbatim copy at all. Kept, since it is valid,
 * but said once, because it is rarely what was meant.
 */
export function kindsWarning(settings: Pick<JscpdSettings, "kinds">): string | undefined {
	if (settings.kinds.includes("exact")) return undefined;
	return `pi-jscpd: "kinds" is ${JSON.stringify(settings.kinds)} without "exact": verbatim copies are not reported (jscpd reports an exact copy only as exact). Add "exact" to report them.`;
}

/** The detection part of the settings. */
export function detectionOf(settings: JscpdSettings): Detection {
	return {
		kinds: settings.kinds,
		similarity: settings.similarity,
		...(settings.minTokens === undefined ? {} : { minTokens: settings.minTokens }),
		...(settings.minLines === undefined ? {} : { minLines: settings.minLines }),
	};
}

/** The kit settings spec for pi-jscpd. */
export const SETTINGS_SPEC: SettingsSpec<JscpdSettings> = Object.freeze({
	name: "pi-jscpd",
	defaults: DEFAULT_SETTINGS,
	validate: validateSettings,
});
