/**
 * The command registry: one `as const satisfies` table from which `/jscpd` and `jscpd_run` derive
 * their subcommand names, hints, completions, help text and types.
 */

/** How one subcommand is described. */
export interface CommandSpec {
	/** Argument hint shown after the name, e.g. `[paths…]`. */
	readonly hint: string;
	/** One-line description for help and completions. */
	readonly description: string;
	/** Whether the subcommand accepts arguments. */
	readonly takesArgs: boolean;
}

/** Every subcommand of `/jscpd` and `jscpd_run`. */
export const COMMANDS = {
	scan: {
		hint: "[paths…]",
		description: "Scan the project (or paths inside it) for duplicated code and list the clones",
		takesArgs: true,
	},
	changed: {
		hint: "",
		description:
			"Report duplicates that are new since the session baseline and touch files changed in this session",
		takesArgs: false,
	},
	status: {
		hint: "[--verbose]",
		description: "Show what is checked, what the last check found and what to do (--verbose: internals)",
		takesArgs: true,
	},
	on: {
		hint: "",
		description:
			"Turn the automatic checkpoint on (/jscpd: saved for every project; jscpd_run: this session only)",
		takesArgs: false,
	},
	off: {
		hint: "",
		description:
			"Turn the automatic checkpoint off (/jscpd: saved for every project; jscpd_run: this session only)",
		takesArgs: false,
	},
	help: { hint: "", description: "Show this help", takesArgs: false },
} as const satisfies Record<string, CommandSpec>;

/**
 * Subcommands of `/jscpd` only: triage is the user's decision, so `jscpd_run` does not offer them
 * (its declaration, sent with every request, stays as it is).
 */
export const USER_COMMANDS = {
	dismiss: {
		hint: "<n>",
		description: "Dismiss finding n as intended: never reported to the model again (no n: list the findings)",
		takesArgs: true,
	},
	undismiss: {
		hint: "<n>",
		description: "Undo the dismissal of finding n",
		takesArgs: true,
	},
} as const satisfies Record<string, CommandSpec>;

/** A subcommand name of `jscpd_run` and `/jscpd`. */
export type CommandName = keyof typeof COMMANDS;

/** A subcommand name of `/jscpd` only. */
export type UserCommandName = keyof typeof USER_COMMANDS;

/** `/jscpd`-only subcommand names in registry order. */
export const USER_COMMAND_NAMES = Object.keys(USER_COMMANDS) as readonly UserCommandName[];

/** Narrows an unknown value to a `/jscpd`-only subcommand name. */
export function isUserCommandName(value: unknown): value is UserCommandName {
	return typeof value === "string" && Object.hasOwn(USER_COMMANDS, value);
}

const ALL_COMMANDS: Record<string, CommandSpec> = { ...COMMANDS, ...USER_COMMANDS };
/** Every `/jscpd` subcommand, shared ones first. */
const USER_ORDER: readonly string[] = [...Object.keys(COMMANDS), ...USER_COMMAND_NAMES];

/** Subcommand names in registry order. */
export const COMMAND_NAMES = Object.keys(COMMANDS) as readonly CommandName[];

/** Narrows an unknown value to a subcommand name. */
export function isCommandName(value: unknown): value is CommandName {
	return typeof value === "string" && Object.hasOwn(COMMANDS, value);
}

/** One completion item, shaped like Pi's `AutocompleteItem`. */
export interface CompletionItem {
	/** Inserted text. */
	readonly value: string;
	/** Shown label. */
	readonly label: string;
	/** Shown description. */
	readonly description: string;
}

/** Completions for the first argument of `/jscpd`; `null` once the subcommand is typed. */
export function commandCompletions(prefix: string): CompletionItem[] | null {
	const trimmed = prefix.trimStart();
	const option = /^status\s+(-*\w*)$/.exec(trimmed);
	if (option)
		return "--verbose".startsWith(option[1] ?? "")
			? [{ value: "status --verbose", label: "--verbose", description: "Also show the internals" }]
			: null;
	if (/\s/.test(trimmed)) return null;
	const items = USER_ORDER.filter((name) => name.startsWith(trimmed)).map((name) => {
		const spec = ALL_COMMANDS[name] as CommandSpec;
		return { value: name, label: spec.hint ? `${name} ${spec.hint}` : name, description: spec.description };
	});
	return items.length > 0 ? items : null;
}

/**
 * The help text: `/jscpd help` (the user's, with the `/jscpd`-only triage commands) and
 * `jscpd_run help` (the model's: the commands it can call).
 */
export function helpText(audience: "user" | "model" = "model"): string {
	const names = audience === "user" ? USER_ORDER : COMMAND_NAMES;
	const rows = names.map((name) => {
		const spec = ALL_COMMANDS[name] as CommandSpec;
		return { usage: spec.hint ? `${name} ${spec.hint}` : name, description: spec.description };
	});
	const width = Math.max(...rows.map((row) => row.usage.length)) + 2;
	const lines = rows.map((row) => `  ${row.usage.padEnd(width)}${row.description}`);
	return [
		audience === "user"
			? "Usage: /jscpd <command> (the model runs the same commands with the jscpd_run tool)"
			: "Usage: /jscpd <command> (tool: jscpd_run {command, args})",
		...lines,
		...(audience === "user"
			? ["dismiss and undismiss are for you only: jscpd_run does not offer them."]
			: []),
		"The automatic checkpoint runs after the agent settles and reports only new duplicates in files changed this session.",
	].join("\n");
}
