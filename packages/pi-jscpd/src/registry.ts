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
		hint: "",
		description: "Show jscpd availability, baseline, checkpoint state and settings",
		takesArgs: false,
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

/** A subcommand name. */
export type CommandName = keyof typeof COMMANDS;

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
	if (/\s/.test(trimmed)) return null;
	const items = COMMAND_NAMES.filter((name) => name.startsWith(trimmed)).map((name) => ({
		value: name,
		label: COMMANDS[name].hint ? `${name} ${COMMANDS[name].hint}` : name,
		description: COMMANDS[name].description,
	}));
	return items.length > 0 ? items : null;
}

/** The help text shared by `/jscpd help` and `jscpd_run help`. */
export function helpText(): string {
	const lines = COMMAND_NAMES.map((name) => {
		const usage = COMMANDS[name].hint ? `${name} ${COMMANDS[name].hint}` : name;
		return `  ${usage.padEnd(16)} ${COMMANDS[name].description}`;
	});
	return [
		"Usage: /jscpd <command> (tool: jscpd_run {command, args})",
		...lines,
		"The automatic checkpoint runs after the agent settles and reports only new duplicates in files changed this session.",
	].join("\n");
}
