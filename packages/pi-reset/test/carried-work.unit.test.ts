/**
 * The pure rules behind "every reset carries the work" (issue 32): the run that serves an idle
 * `/reset` keeps the work read when it started, `/reset --fresh` keeps none, and the boot note's
 * closing line never tells the model to continue a task that nothing names.
 */
import { describe, expect, it } from "vitest";
import {
	INITIAL_WINDOW,
	initialState,
	type ResetEvent,
	type ResetState,
	reduceReset,
	type Step,
} from "../src/core/reducer.js";
import { type BootFacts, bootText } from "../src/core/texts.js";

function run(state: ResetState, ...events: ResetEvent[]): Step {
	let step: Step = { state, effect: { type: "none" } };
	for (const event of events) step = reduceReset(Object.freeze(step.state), Object.freeze(event));
	return step;
}

const on = run(initialState(), {
	type: "restore",
	enabled: true,
	window: INITIAL_WINDOW,
	generation: 1,
	handoff: undefined,
}).state;
const carried = {
	userRequest: "port the modules",
	digest: "Files it modified (they already contain that work): a.ts",
};
const start: ResetEvent = { type: "run-start", baseLeafId: "leaf", newWindowId: "w1-n", carried };

describe("the work a reset carries", () => {
	it("the run serving an idle /reset keeps the work read when it started", () => {
		const step = run(on, { type: "request", source: "command", handoff: undefined, streaming: false }, start);
		expect(step.effect).toMatchObject({ type: "project-next-run", nextRun: { carried } });
	});

	it("/reset --fresh carries nothing, whatever the run read", () => {
		const step = run(
			on,
			{ type: "request", source: "command", handoff: "NOTE", streaming: false, fresh: true },
			start,
		);
		expect(step.effect).toMatchObject({
			type: "project-next-run",
			nextRun: { request: { fresh: true }, carried: { userRequest: undefined, digest: undefined } },
		});
	});
});

describe("the boot note's closing line is true", () => {
	const base: BootFacts = {
		windowId: "w1-x",
		cause: "/reset",
		handoff: undefined,
		userRequest: undefined,
		kept: "prompt",
	};
	const cases: [string, Partial<BootFacts>, RegExp][] = [
		[
			"a handoff, a new message follows: go on from its next action where the message goes on with the task",
			{ handoff: "Next action: b" },
			/\nWhere the user's new message goes on with this task, go on from the next action\./,
		],
		[
			"a digest, a new message follows: go on from where the window stopped where the message goes on with the task",
			{ digest: "Files it modified (they already contain that work): a.ts" },
			/\nWhere the user's new message goes on with this task, go on from where the previous window stopped\./,
		],
		[
			"only a request, a new message follows: continue it where the message goes on with it",
			{ userRequest: "do it" },
			/\nWhere the user's new message goes on with this task, continue it from here\.$/,
		],
		[
			"a handoff, nothing follows: go on from its next action",
			{ handoff: "Next action: b", kept: "nothing" },
			/\nGo on from the next action\./,
		],
		[
			"a digest, nothing follows: go on from where the window stopped",
			{ digest: "Files it modified (they already contain that work): a.ts", kept: "nothing" },
			/\nGo on from where the previous window stopped\./,
		],
		[
			"a digest of a window that modified no file: no claim that its work is in files",
			{ digest: "Its last answer:\nA2", kept: "nothing" },
			/\nGo on from where the previous window stopped; do not redo its finished work\.$/,
		],
		[
			"only a request, nothing follows: continue the task",
			{ userRequest: "do it", kept: "nothing" },
			/\nContinue the task from here\.$/,
		],
		[
			"nothing, a new message follows: start from it",
			{},
			/No earlier task is carried over: start from the user's new message\.$/,
		],
		[
			"nothing, nothing follows: wait for the user",
			{ kept: "nothing" },
			/No earlier task is carried over: wait for the user's next message\.$/,
		],
	];
	for (const [name, facts, closing] of cases) {
		it(name, () => {
			const text = bootText({ ...base, ...facts });
			expect(text).toMatch(closing);
			if (!facts.userRequest) expect(text).not.toMatch(/Continue the task from here|continue it from here/);
		});
	}

	it("a fresh start says so and carries no request label", () => {
		const text = bootText({ ...base, fresh: true });
		expect(text).toContain("The user asked for a fresh start");
		expect(text).not.toContain("request, verbatim");
	});
});
