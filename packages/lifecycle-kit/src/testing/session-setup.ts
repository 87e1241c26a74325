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

/** What Pi's loader reports: the extensions it loaded and its errors. */
interface LoadReport {
	readonly extensions: readonly { readonly path: string }[];
	readonly errors: readonly { readonly path: string; readonly error: string }[];
}

/**
 * Throws when Pi's loader did not load an extension (wrong path, failed import, throwing factory):
 * a test would go on without it and could pass vacuously. Tool and flag conflicts are diagnostics
 * of loaded extensions (Pi keeps both, by load order), not failures. `cleanup` runs before the throw.
 */
export function assertExtensionsLoaded(report: LoadReport, cleanup?: () => void): void {
	const loaded = new Set(report.extensions.map((extension) => extension.path));
	const failed = report.errors.filter((failure) => !loaded.has(failure.path));
	if (failed.length === 0) return;
	cleanup?.();
	const lines = failed.map((failure) => `- ${failure.path}: ${failure.error}`);
	throw new Error(
		`createScriptedSession: ${failed.length} extension(s) failed to load:\n${lines.join("\n")}`,
	);
}
