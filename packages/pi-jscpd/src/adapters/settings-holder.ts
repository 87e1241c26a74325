/**
 * The effective settings of one runtime, reloaded at session start and on `/jscpd on|off`. A
 * session switch (`jscpd_run on|off`, which the model can reach) overrides `enabled` for this
 * runtime only and is never saved: persistent switches are the user's.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createOnceReporter, loadSettings } from "@pi-lifecycle/lifecycle-kit";
import { printablePath } from "../core/project-paths.js";
import { DEFAULT_SETTINGS, type JscpdSettings, kindsWarning, SETTINGS_SPEC } from "./config.js";
import { safeTrusted } from "./ui.js";

/** See the module comment. Warns about rejected files (and `kinds` without `exact`) once per runtime. */
export class SettingsHolder {
	#value: JscpdSettings = DEFAULT_SETTINGS;
	#sources: string[] = [];
	#session: boolean | undefined;
	readonly #warnOnce = createOnceReporter("pi-jscpd");

	/** The effective settings (the session switch applied). */
	get value(): JscpdSettings {
		return this.#value;
	}

	/** Where each layer came from, for status. */
	get sources(): readonly string[] {
		const session =
			this.#session === undefined
				? []
				: [`session: checkpoint ${this.#session ? "on" : "off"} (jscpd_run, not saved)`];
		return [...this.#sources, ...session];
	}

	/**
	 * Reads the global layer and, in trusted projects, the project layer. `session` sets the session
	 * switch (`null` clears it, so a saved `/jscpd on|off` takes effect); omitted keeps it.
	 */
	reload(ctx: ExtensionContext, agentDir: string, session?: boolean | null): void {
		if (session !== undefined) this.#session = session ?? undefined;
		const loaded = loadSettings(SETTINGS_SPEC, { agentDir, cwd: ctx.cwd, projectTrusted: safeTrusted(ctx) });
		this.#value = this.#session === undefined ? loaded.value : { ...loaded.value, enabled: this.#session };
		this.#sources = loaded.sources.map((s) => `${s.scope}: ${s.status} (${printablePath(s.path)})`);
		const kinds = kindsWarning(loaded.value);
		const warnings = [...loaded.warnings.map(printablePath), ...(kinds ? [kinds] : [])];
		// A warning names the settings file (under the project's own directory): one line each.
		if (warnings.length > 0) this.#warnOnce(ctx, warnings.join("\n"));
	}
}
