/**
 * pi-reset settings (`<agentDir>/pi-lifecycle/pi-reset.json`, project `.pi/pi-lifecycle/pi-reset.json`
 * when trusted). Pi's own compaction settings are read in pi-compaction-settings.ts.
 */
import { check, type SettingsSpec, type SettingsValidation } from "@pi-lifecycle/lifecycle-kit";
import {
	DEFAULT_KEEP_LARGE_TURNS,
	DEFAULT_KEEP_TURNS,
	DEFAULT_STEP_TURNS,
	type MaskingSettings,
} from "../core/masking.js";
import { MAX_REQUEST_CHARS, WARNING_MARGIN_TOKENS } from "../core/texts.js";

/** What a user can set. */
export interface ResetSettings {
	/** Whether pi-reset is on in sessions that never ran `/reset on|off`. */
	readonly enabled: boolean;
	/** Tokens above Pi's compaction reserve at which the checkpoint warning fires. */
	readonly warningMarginTokens: number;
	/** Largest excerpt of the user's most recent request carried into a new window. */
	readonly maxRequestChars: number;
	/** Whether old tool output is replaced by a one-line stub in what is sent (the session keeps it). */
	readonly masking: boolean;
	/** Turns a tool output stays in full after the turn that produced it. */
	readonly maskAfterTurns: number;
	/** Turns between two masking steps (requests between steps share their prefix). */
	readonly maskStepTurns: number;
	/** Turns a large tool output (4,000 characters or more) stays in full (at most `maskAfterTurns`). */
	readonly maskLargeAfterTurns: number;
}

/** Defaults. */
export const DEFAULT_SETTINGS: Readonly<ResetSettings> = Object.freeze({
	enabled: true,
	warningMarginTokens: WARNING_MARGIN_TOKENS,
	maxRequestChars: MAX_REQUEST_CHARS,
	masking: true,
	maskAfterTurns: DEFAULT_KEEP_TURNS,
	maskStepTurns: DEFAULT_STEP_TURNS,
	maskLargeAfterTurns: DEFAULT_KEEP_LARGE_TURNS,
});

const KEYS = [
	"enabled",
	"warningMarginTokens",
	"maxRequestChars",
	"masking",
	"maskAfterTurns",
	"maskStepTurns",
	"maskLargeAfterTurns",
] as const;

/** Validates a settings file (whole-file rejection on any issue). */
export function validateSettings(raw: unknown): SettingsValidation<ResetSettings> {
	if (!check.isObject(raw)) return { ok: false, issues: ["must be a JSON object"] };
	const issues = check.knownKeys(raw, KEYS);
	const value: Partial<ResetSettings> = {};
	if (raw.enabled !== undefined) {
		const issue = check.boolean("enabled", raw.enabled);
		if (issue) issues.push(issue);
		else Object.assign(value, { enabled: raw.enabled });
	}
	if (raw.warningMarginTokens !== undefined) {
		const issue = check.integer("warningMarginTokens", raw.warningMarginTokens, 0, 1_000_000);
		if (issue) issues.push(issue);
		else Object.assign(value, { warningMarginTokens: raw.warningMarginTokens });
	}
	if (raw.maxRequestChars !== undefined) {
		const issue = check.integer("maxRequestChars", raw.maxRequestChars, 200, 100_000);
		if (issue) issues.push(issue);
		else Object.assign(value, { maxRequestChars: raw.maxRequestChars });
	}
	if (raw.masking !== undefined) {
		const issue = check.boolean("masking", raw.masking);
		if (issue) issues.push(issue);
		else Object.assign(value, { masking: raw.masking });
	}
	for (const key of ["maskAfterTurns", "maskStepTurns", "maskLargeAfterTurns"] as const) {
		if (raw[key] === undefined) continue;
		const issue = check.integer(key, raw[key], 1, 10_000);
		if (issue) issues.push(issue);
		else Object.assign(value, { [key]: raw[key] });
	}
	return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

/** The masking part of the settings. */
export function maskingSettings(settings: ResetSettings): MaskingSettings {
	return {
		enabled: settings.masking,
		keepTurns: settings.maskAfterTurns,
		stepTurns: settings.maskStepTurns,
		keepLargeTurns: settings.maskLargeAfterTurns,
	};
}

/** The settings spec for the kit's loader. */
export const SETTINGS_SPEC: SettingsSpec<ResetSettings> = {
	name: "pi-reset",
	defaults: DEFAULT_SETTINGS,
	validate: validateSettings,
};
