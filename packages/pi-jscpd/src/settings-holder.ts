/** The effective settings of one runtime, reloaded at session start and on `/jscpd on|off`. */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { loadSettings } from "@pi-lifecycle/lifecycle-kit";
import { DEFAULT_SETTINGS, type JscpdSettings, SETTINGS_SPEC } from "./config.js";
import { notify, safeTrusted } from "./ui.js";

/** See the module comment. Warns about rejected files once per runtime. */
export class SettingsHolder {
	#value: JscpdSettings = DEFAULT_SETTINGS;
	#sources: string[] = [];
	#warned = false;

	/** The effective settings. */
	get value(): JscpdSettings {
		return this.#value;
	}

	/** Where each layer came from, for status. */
	get sources(): readonly string[] {
		return this.#sources;
	}

	/** Reads the global layer and, in trusted projects, the project layer. */
	reload(ctx: ExtensionContext, agentDir: string): void {
		const loaded = loadSettings(SETTINGS_SPEC, { agentDir, cwd: ctx.cwd, projectTrusted: safeTrusted(ctx) });
		this.#value = loaded.value;
		this.#sources = loaded.sources.map((s) => `${s.scope}: ${s.status} (${s.path})`);
		if (loaded.warnings.length > 0 && !this.#warned) {
			this.#warned = true;
			notify(ctx, loaded.warnings.join("\n"), "warning");
		}
	}
}
