/**
 * The status of one runtime: the last outcome, recent check records, re-deliveries, and the footer
 * (the kit's stale-context-safe setter; texts from presentation.ts). `/jscpd status` reads
 * {@link StatusKeeper.view}.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createFooterStatus } from "@pi-lifecycle/lifecycle-kit";
import type { CheckOutcome } from "../core/check-outcome.js";
import { type FooterInput, footerText, STATUS_KEY } from "../core/presentation.js";
import type { CheckRecord } from "../core/scheduler.js";
import type { StatusView } from "../core/status.js";

/** The parts of the status the keeper does not own, read when a view or the footer is built. */
export interface StatusSources {
	readonly view: () => Omit<StatusView, "lastOutcome" | "lastRecord" | "recentChecks" | "redelivered">;
	readonly footer: () => Omit<FooterInput, "outcome">;
	/** The context the footer is shown in (undefined: none, or shut down). */
	readonly context: () => ExtensionContext | undefined;
}

/** Most check records kept. */
const MAX_RECORDS = 10;

/** See the module comment. */
export class StatusKeeper {
	readonly #sources: StatusSources;
	readonly #footer = createFooterStatus(STATUS_KEY);
	readonly #records: CheckRecord[] = [];
	#lastOutcome: CheckOutcome | undefined;
	#redelivered = 0;

	constructor(sources: StatusSources) {
		this.#sources = sources;
	}

	/** A check (automatic or explicit) ended with `outcome`. */
	readonly outcome = (outcome: CheckOutcome): void => {
		this.#lastOutcome = outcome;
	};

	/** `/tree` restored another branch: no check ran on it yet, so the footer shows no outcome. */
	branchRestored(): void {
		this.#lastOutcome = undefined;
		this.update();
	}

	/** The scheduler settled an automatic check. */
	record(record: CheckRecord): void {
		this.#records.push(record);
		if (this.#records.length > MAX_RECORDS) this.#records.shift();
		this.update();
	}

	/** Findings re-delivered after a reset. */
	redelivered(count: number): void {
		this.#redelivered += count;
	}

	/** A status snapshot. */
	view(): StatusView {
		return {
			...this.#sources.view(),
			redelivered: this.#redelivered,
			lastOutcome: this.#lastOutcome,
			lastRecord: this.#records.at(-1),
			recentChecks: [...this.#records],
		};
	}

	/** Shows the current state in the footer (`checking`: a check is about to run). */
	update(hint?: "checking"): void {
		const ctx = this.#sources.context();
		if (!ctx) return;
		const input = this.#sources.footer();
		this.#footer.set(
			ctx,
			footerText({ ...input, checking: hint === "checking" || input.checking, outcome: this.#lastOutcome }),
		);
	}
}
