/**
 * The tool batch a goal_complete call belongs to (issue 30): the other calls of the same assistant
 * message and how they ended. Pi announces every call of a batch (tool_execution_start) before a
 * parallel batch runs; a call that started but has not ended runs beside goal_complete and is
 * awaited, one that has not started comes after it (a sequential batch) and is unverified. O(calls
 * of the current batch); nothing of an older batch is kept.
 */
import { callLabel, callsOf } from "../core/stuck-facts.js";
import { TOOL_NAMES } from "../core/types.js";

interface CallState {
	readonly label: string;
	readonly goalTool: boolean;
	started: boolean;
	ended: boolean;
	isError: boolean;
	readonly done: Promise<void>;
	finish: () => void;
}

const GOAL_TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES);

/** Tracks the current tool batch. */
export class BatchTracker {
	#calls = new Map<string, CallState>();

	/** A new assistant response: its tool calls form the batch. */
	response(content: unknown): void {
		this.#calls = new Map();
		for (const call of callsOf(content)) {
			let finish = () => {};
			const done = new Promise<void>((resolve) => {
				finish = resolve;
			});
			this.#calls.set(call.id, {
				label: callLabel(call),
				goalTool: GOAL_TOOLS.has(call.name),
				started: false,
				ended: false,
				isError: false,
				done,
				finish,
			});
		}
	}

	/** tool_execution_start. */
	started(id: string): void {
		const call = this.#calls.get(id);
		if (call) call.started = true;
	}

	/** tool_execution_end. */
	ended(id: string, isError: boolean): void {
		const call = this.#calls.get(id);
		if (!call) return;
		call.ended = true;
		call.isError = isError;
		call.finish();
	}

	/**
	 * What is wrong with the other calls of `id`'s batch, if anything: a failed command, or one whose
	 * result is not in (it comes after goal_complete). Calls running beside it are awaited first.
	 */
	async problemBeside(id: string, signal: AbortSignal | undefined): Promise<string | undefined> {
		if (!this.#calls.has(id)) return undefined;
		const others = [...this.#calls.entries()].filter(([other, call]) => other !== id && !call.goalTool);
		const running = others.filter(([, call]) => call.started && !call.ended).map(([, call]) => call.done);
		if (running.length > 0) {
			const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve()));
			await Promise.race([Promise.all(running), aborted]);
		}
		for (const [, call] of others) {
			if (call.ended && call.isError) return `\`${call.label}\` failed`;
			if (!call.ended) return `the result of \`${call.label}\` is not in yet`;
		}
		return undefined;
	}
}
