/**
 * Host check: these extensions need Pi >= 1.3.0 (agent_settled.aborted, session_compact_failed,
 * agent_before_settle, actionable turn_end, retain-none compaction drafts). Below that an extension
 * stays dormant and says why, once.
 *
 * The kit imports nothing from Pi at runtime: pass the host's `VERSION`, which your extension
 * imports from `@earendil-works/pi-coding-agent` (Pi maps that import to the running host).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** The oldest published Pi that has every boundary and settle feature the kit relies on. */
export const MIN_PI_VERSION = "1.3.0";

/** The outcome of {@link checkHost}. */
export type HostCheck =
	| { readonly supported: true; readonly version: string }
	| { readonly supported: false; readonly version: string; readonly reason: string };

function parse(version: string): [number, number, number] | undefined {
	const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
	if (!match) return undefined;
	return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Compares two `major.minor.patch` versions (pre-release suffixes ignored). */
export function compareVersions(a: string, b: string): number {
	const left = parse(a) ?? [0, 0, 0];
	const right = parse(b) ?? [0, 0, 0];
	for (let i = 0; i < 3; i++) {
		const diff = (left[i] ?? 0) - (right[i] ?? 0);
		if (diff !== 0) return Math.sign(diff);
	}
	return 0;
}

/** Whether a host version can run lifecycle-kit extensions. */
export function checkHost(version: unknown, minimum = MIN_PI_VERSION): HostCheck {
	if (typeof version !== "string" || !parse(version)) {
		return {
			supported: false,
			version: String(version),
			reason: `cannot read Pi's version (got ${String(version)})`,
		};
	}
	if (compareVersions(version, minimum) < 0) {
		return { supported: false, version, reason: `Pi ${version} is older than ${minimum}` };
	}
	return { supported: true, version };
}

/**
 * For an unsupported host: registers one `session_start` handler that tells the user, once per
 * runtime, why `name` is dormant. Returns the check so the factory can return early.
 */
export function guardHost(pi: Pick<ExtensionAPI, "on">, name: string, version: unknown): HostCheck {
	const check = checkHost(version);
	if (check.supported) return check;
	let told = false;
	pi.on("session_start", (_event, ctx) => {
		if (told) return;
		told = true;
		const text = `${name} is inactive: ${check.reason}. It needs Pi ${MIN_PI_VERSION} or newer.`;
		if (ctx.hasUI) ctx.ui.notify(text, "warning");
		else console.error(text);
	});
	return check;
}
