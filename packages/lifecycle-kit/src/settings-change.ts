/**
 * A user's settings change: save to the global file, reload the effective settings (a trusted
 * project file still wins), and say which saved values do not take effect. Used by every command
 * or menu that changes a setting, so "saved but overridden" reads the same in every package.
 */
import {
	type LoadedSettings,
	loadSettings,
	type SettingsLocation,
	type SettingsSpec,
	saveSettings,
} from "./settings.js";

/** The outcome of {@link saveAndReload}. */
export type SettingsChange<T> =
	| { readonly ok: false; readonly error: string }
	| {
			readonly ok: true;
			/** The file written. */
			readonly path: string;
			/** The reloaded effective settings (apply these, not the patch). */
			readonly loaded: LoadedSettings<T>;
			/** Keys of the patch whose effective value differs: a trusted project file overrides them. */
			readonly overridden: readonly (keyof T & string)[];
	  };

/** The words every package appends when a saved value is overridden. */
export const OVERRIDDEN_NOTE = "a trusted project settings file overrides the saved value";

/**
 * Saves `patch` to the global settings file, then reloads. A failed save changes nothing (the
 * caller keeps the previous settings). Never throws.
 */
export function saveAndReload<T extends object>(
	spec: SettingsSpec<T>,
	location: SettingsLocation,
	patch: Partial<T>,
): SettingsChange<T> {
	const saved = saveSettings(spec, location, "global", patch);
	if (!saved.ok) return saved;
	const loaded = loadSettings(spec, location);
	const overridden = (Object.keys(patch) as (keyof T & string)[]).filter(
		(key) => !Object.is(loaded.value[key], patch[key]),
	);
	return { ok: true, path: saved.path, loaded, overridden };
}
