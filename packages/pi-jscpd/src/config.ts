/**
 * Settings: `enabled`, `timeoutMs`, `maxFindings`, loaded through the kit from
 * `<agentDir>/pi-lifecycle/pi-jscpd.json` and (trusted projects only) `.pi/pi-lifecycle/pi-jscpd.json`.
 * Validation is strict: unknown keys or out-of-range values reject the whole file.
 */
import { check, type SettingsSpec, type SettingsValidation } from "@pi-lifecycle/lifecycle-kit";

/** Effective pi-jscpd settings. */
export interface JscpdSettings {
	/** Whether the automatic checkpoint runs (explicit commands work either way). */
	readonly enabled: boolean;
	/** Timeout of one jscpd process, in milliseconds. */
	readonly timeoutMs: number;
	/** Most findings shown in one checkpoint message or tool result. */
	readonly maxFindings: number;
}

/** Bounds for numeric settings. */
export const LIMITS = {
	timeoutMs: { min: 1_000, max: 600_000 },
	maxFindings: { min: 1, max: 20 },
} as const;

/** Frozen defaults. */
export const DEFAULT_SETTINGS: Readonly<JscpdSettings> = Object.freeze({
	enabled: true,
	timeoutMs: 30_000,
	maxFindings: 5,
});

const KEYS = ["enabled", "timeoutMs", "maxFindings"] as const;

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
	for (const key of ["timeoutMs", "maxFindings"] as const) {
		if (!(key in raw)) continue;
		const issue = check.integer(key, raw[key], LIMITS[key].min, LIMITS[key].max);
		if (issue) issues.push(issue);
		else value[key] = raw[key] as number;
	}
	return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

/** The kit settings spec for pi-jscpd. */
export const SETTINGS_SPEC: SettingsSpec<JscpdSettings> = Object.freeze({
	name: "pi-jscpd",
	defaults: DEFAULT_SETTINGS,
	validate: validateSettings,
});
