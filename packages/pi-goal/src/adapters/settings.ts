/** pi-goal settings spec: `<agentDir>/pi-lifecycle/pi-goal.json` (and the trusted project file). */
import { check, type SettingsSpec, type SettingsValidation } from "@pi-lifecycle/lifecycle-kit";
import { STUCK_WINDOW } from "../core/stuck.js";
import { DEFAULT_SETTINGS, type GoalSettings } from "../core/types.js";

const KEYS = [
	"automaticTurns",
	"noProgressTurns",
	"repeatedActions",
	"repeatedErrors",
	"cycleActions",
	"retryUsageLimits",
	"usageRetries",
	"managedRuns",
] as const;

/** The stuck detector's thresholds: the rules see the last 8 responses. */
const STUCK_RANGES = {
	repeatedActions: [2, STUCK_WINDOW],
	repeatedErrors: [2, STUCK_WINDOW],
	cycleActions: [4, STUCK_WINDOW],
} as const;

function nullableInteger(key: string, value: unknown, max: number, min = 1): string | undefined {
	if (value === null) return undefined;
	return check.integer(key, value, min, max)
		? `"${key}" must be an integer from ${min} to ${max}, or null`
		: undefined;
}

/** Validates a parsed settings file; unknown keys reject the whole file. */
export function validateGoalSettings(raw: unknown): SettingsValidation<GoalSettings> {
	if (!check.isObject(raw)) return { ok: false, issues: ["the file must contain a JSON object"] };
	const issues = check.knownKeys(raw, KEYS);
	const value: { -readonly [K in keyof GoalSettings]?: GoalSettings[K] } = {};
	if ("automaticTurns" in raw) {
		const issue = nullableInteger("automaticTurns", raw.automaticTurns, 10_000);
		if (issue) issues.push(issue);
		else value.automaticTurns = raw.automaticTurns as number | null;
	}
	if ("noProgressTurns" in raw) {
		const issue = nullableInteger("noProgressTurns", raw.noProgressTurns, 1_000);
		if (issue) issues.push(issue);
		else value.noProgressTurns = raw.noProgressTurns as number | null;
	}
	for (const key of Object.keys(STUCK_RANGES) as (keyof typeof STUCK_RANGES)[]) {
		if (!(key in raw)) continue;
		const [min, max] = STUCK_RANGES[key];
		const issue = nullableInteger(key, raw[key], max, min);
		if (issue) issues.push(issue);
		else value[key] = raw[key] as number | null;
	}
	if ("retryUsageLimits" in raw) {
		const issue = check.boolean("retryUsageLimits", raw.retryUsageLimits);
		if (issue) issues.push(issue);
		else value.retryUsageLimits = raw.retryUsageLimits as boolean;
	}
	if ("usageRetries" in raw) {
		const issue = nullableInteger("usageRetries", raw.usageRetries, 100);
		if (issue) issues.push(issue);
		else value.usageRetries = raw.usageRetries as number | null;
	}
	if ("managedRuns" in raw) {
		const issue = check.boolean("managedRuns", raw.managedRuns);
		if (issue) issues.push(issue);
		else value.managedRuns = raw.managedRuns as boolean;
	}
	return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

/** The spec handed to the kit's loadSettings/saveSettings. */
export const GOAL_SETTINGS_SPEC: SettingsSpec<GoalSettings> = {
	name: "pi-goal",
	defaults: DEFAULT_SETTINGS,
	validate: validateGoalSettings,
};
