/** Setup steps of the scripted session (scripted-session.ts): extension order and session storage. */
import { type ExtensionFactory, type InlineExtension, SessionManager } from "@earendil-works/pi-coding-agent";

/** The extension list Pi loads: the extensions under test plus the recorder (unless turned off). */
export function orderExtensions(
	extensions: readonly (ExtensionFactory | { name: string; factory: ExtensionFactory })[] | undefined,
	recorder: InlineExtension,
	placement: { readonly recorder?: boolean; readonly recorderPosition?: "first" | "last" },
): InlineExtension[] {
	const inline: InlineExtension[] = (extensions ?? []).map((ext) =>
		typeof ext === "function" ? ext : { name: ext.name, factory: ext.factory },
	);
	if (placement.recorder === false) return inline;
	return placement.recorderPosition === "first" ? [recorder, ...inline] : [...inline, recorder];
}

/** Session storage: in memory, a new file under `sessionDir`, or an existing file reopened. */
export function openSessionStorage(
	storage: "memory" | "file" | { open: string },
	cwd: string,
	sessionDir: string,
): SessionManager {
	if (storage === "memory") return SessionManager.inMemory(cwd);
	if (storage === "file") return SessionManager.create(cwd, sessionDir);
	return SessionManager.open(storage.open, sessionDir, cwd);
}

/** A load error of an extension Pi did not load. Tool and flag conflicts are diagnostics of loaded ones: Pi keeps both, by load order. */
export function failedExtensions(result: {
	readonly extensions: readonly { readonly path: string }[];
	readonly errors: readonly { readonly path: string; readonly error: string }[];
}): { readonly path: string; readonly error: string }[] {
	const loaded = new Set(result.extensions.map((extension) => extension.path));
	return result.errors.filter((failure) => !loaded.has(failure.path));
}

/** The message for extensions Pi's loader could not load. */
export function extensionLoadFailure(
	errors: readonly { readonly path: string; readonly error: string }[],
): string {
	const lines = errors.map((failure) => `- ${failure.path}: ${failure.error}`);
	return `createScriptedSession: ${errors.length} extension(s) failed to load:\n${lines.join("\n")}`;
}
