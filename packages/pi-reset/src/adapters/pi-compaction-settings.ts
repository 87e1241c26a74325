/**
 * Reading Pi's compaction settings as Pi resolves them for the current model: the model's override
 * (`compaction.modelOverrides["provider/id"]`), the ordinary setting, then Pi's default. Pi copies
 * all settings on every `getSettings()`, so hot paths read through a {@link ReserveReader}.
 */
import {
	DEFAULT_COMPACTION_SETTINGS,
	type ExtensionAPI,
	type ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import { DEFAULT_RESERVE_TOKENS } from "../core/texts.js";

/** The token settings of Pi's compaction. */
export type CompactionTokenField = "reserveTokens" | "keepRecentTokens";

const DEFAULT_TOKENS: { readonly [F in CompactionTokenField]: number } = {
	reserveTokens: DEFAULT_RESERVE_TOKENS,
	keepRecentTokens: DEFAULT_COMPACTION_SETTINGS.keepRecentTokens,
};

function nonNegativeInteger(value: unknown): number | undefined {
	return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/**
 * Pi's effective `compaction.<field>` for the current model: the model override, the ordinary
 * setting, then Pi's default (the order Pi itself uses). A value that is not a non-negative safe
 * integer (one Pi refuses) is skipped. Never throws.
 */
export function compactionTokens(
	pi: Pick<ExtensionAPI, "getSettings">,
	ctx: Pick<ExtensionContext, "model">,
	field: CompactionTokenField,
): number {
	try {
		const compaction = pi.getSettings().compaction;
		const key = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
		const override = key ? compaction?.modelOverrides?.[key]?.[field] : undefined;
		return nonNegativeInteger(override) ?? nonNegativeInteger(compaction?.[field]) ?? DEFAULT_TOKENS[field];
	} catch {
		return DEFAULT_TOKENS[field];
	}
}

/** Pi's effective `compaction.reserveTokens` for the current model. */
export function reserveTokens(
	pi: Pick<ExtensionAPI, "getSettings">,
	ctx: Pick<ExtensionContext, "model">,
): number {
	return compactionTokens(pi, ctx, "reserveTokens");
}

/** Pi's effective `compaction.keepRecentTokens` for the current model. */
export function keepRecentTokens(
	pi: Pick<ExtensionAPI, "getSettings">,
	ctx: Pick<ExtensionContext, "model">,
): number {
	return compactionTokens(pi, ctx, "keepRecentTokens");
}

/** Pi's `compaction.enabled` (Pi's default: on): whether Pi compacts at its threshold at all. */
export function autoCompactionEnabled(pi: Pick<ExtensionAPI, "getSettings">): boolean {
	try {
		return pi.getSettings().compaction?.enabled !== false;
	} catch {
		return true;
	}
}

/** Reads the reserve and Pi's compaction switch once per run (Pi copies all settings on every read). */
export interface ReserveReader {
	/** Re-reads the reserve and the switch (call when a run starts). */
	refresh(ctx: Pick<ExtensionContext, "model">): void;
	/** The reserve read last, reading it now if never read. */
	get(ctx: Pick<ExtensionContext, "model">): number;
	/** Pi's `compaction.enabled` read last, reading it now if never read. */
	autoCompaction(): boolean;
}

/** Creates a {@link ReserveReader}. */
export function createReserveReader(pi: Pick<ExtensionAPI, "getSettings">): ReserveReader {
	let cached: number | undefined;
	let enabled: boolean | undefined;
	return {
		refresh(ctx) {
			cached = reserveTokens(pi, ctx);
			enabled = autoCompactionEnabled(pi);
		},
		get(ctx) {
			cached ??= reserveTokens(pi, ctx);
			return cached;
		},
		autoCompaction() {
			enabled ??= autoCompactionEnabled(pi);
			return enabled;
		},
	};
}
