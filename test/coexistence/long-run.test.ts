/**
 * Long autonomous runs: a goal continues at agent_before_settle, so Pi stays inside one run and
 * agent_settled does not fire between iterations. pi-jscpd checks at each boundary continuation
 * instead; a duplicate written in one iteration reaches the model within the next two, and a
 * finding delivered just before a reset that the model never saw is delivered again in the new
 * window. All three extensions come from their tarballs, in every load order.
 */
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createScriptedSession,
	type DynamicStep,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasDescendant, untilNoDescendant } from "../support/child-processes.js";
import { duplicatedFunction } from "../support/duplicates.js";
import { activeGoalId, permutations, texts } from "../support/model.js";
import { type ExtensionName, installPacked, type PackedInstall } from "../support/packed.js";

const ALL: ExtensionName[] = ["pi-reset", "pi-goal", "pi-jscpd"];
const FINDING = /jscpd: \d+ new duplicated block/;
/** A model's think time: pi-jscpd's background check runs while the model answers. */
const THINK_MS = Number(process.env.PI_LIFECYCLE_THINK_MS ?? 700);

let install: PackedInstall;
let harness: ScriptedSession | undefined;
beforeAll(() => {
	install = installPacked(ALL);
});
afterAll(() => install?.cleanup());
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const pathsIn = (order: readonly ExtensionName[]) =>
	order.map((name) => install.extensions.find((ext) => ext.name === name)?.packageDir ?? "");

/**
 * Thinks THINK_MS, then on until no jscpd started by this process is still running: the check runs
 * while the model answers, and a loaded machine must not turn "one iteration later" into two.
 */
const think =
	(step: DynamicStep): DynamicStep =>
	async (context, options, state, model) => {
		await new Promise((resolve) => setTimeout(resolve, THINK_MS));
		await untilNoDescendant(/jscpd/);
		return step(context, options, state, model);
	};

/**
 * The first answer after the write: pi-jscpd's check of it starts at the boundary, while this
 * request is made, but a loaded machine can start it later than THINK_MS. Waits (up to 15 s) until
 * a jscpd child has been seen, then thinks as above (until it is gone, and THINK_MS for the report).
 */
const thinkAfterWrite =
	(step: DynamicStep): DynamicStep =>
	async (context, options, state, model) => {
		const deadline = Date.now() + 15_000;
		while (Date.now() < deadline && !hasDescendant(/jscpd/))
			await new Promise((resolve) => setTimeout(resolve, 20));
		await untilNoDescendant(/jscpd/);
		return think(step)(context, options, state, model);
	};

const writeDuplicates: DynamicStep = () =>
	fauxAssistantMessage(
		[
			fauxToolCall("write", { path: "src/alpha.ts", content: duplicatedFunction("alpha") }),
			fauxToolCall("write", { path: "src/beta.ts", content: duplicatedFunction("beta") }),
		],
		{ stopReason: "toolUse" },
	);
/** Review passes that say different things: replies differing only in a number are the same reply to pi-goal's stuck detector. */
const REVIEWS = ["Reviewing alpha.ts.", "Reviewing beta.ts next.", "Checking both modules together."];
const review = (n: number, pace: (step: DynamicStep) => DynamicStep = think): DynamicStep =>
	pace(() => fauxAssistantMessage(fauxText(REVIEWS[n - 1] ?? `Review ${n}.`)));
const complete: DynamicStep = (context) =>
	fauxAssistantMessage(
		[
			fauxToolCall("goal_complete", {
				goal_id: activeGoalId(context.messages) ?? "missing",
				summary: "Both modules written and reviewed.",
			}),
		],
		{ stopReason: "toolUse" },
	);

const sawFinding = (h: ScriptedSession, index: number) =>
	texts(h.requests[index]?.messages ?? []).some((text) => FINDING.test(text));

describe.each(permutations(ALL))("load order %s, %s, %s", (...order) => {
	it("a duplicate written in one goal iteration reaches the model within the next two iterations, in one run", async () => {
		harness = await createScriptedSession({
			extensionPaths: pathsIn(order),
			responses: [writeDuplicates, review(1, thinkAfterWrite), review(2), review(3), complete],
		});
		await harness.prompt("/goal Write the alpha and beta modules");
		expect(harness.errors).toEqual([]);
		// The files were written in the kickoff iteration (0). Each later iteration starts with a
		// goal continuation "(continuation N)"; the finding must reach the model by iteration 2.
		const iterationOf = (index: number) =>
			Math.max(
				0,
				...texts(harness?.requests[index]?.messages ?? []).map((text) =>
					Number(/\(continuation (\d+)\)/.exec(text)?.[1] ?? 0),
				),
			);
		const first = harness.requests.findIndex((_, index) => sawFinding(harness as ScriptedSession, index));
		expect(first, "the finding reached the model").toBeGreaterThan(0);
		expect(iterationOf(first)).toBeGreaterThanOrEqual(1);
		expect(iterationOf(first)).toBeLessThanOrEqual(2);
		// One run: the continuations rode the boundary, no settle in between, no extra request.
		expect(harness.count("before_agent_start")).toBe(1);
		expect(harness.count("agent_settled")).toBe(1);
		expect(harness.providerCalls).toBe(5);
	});

	it("a finding delivered just before a reset that the model never saw is delivered again in the new window", async () => {
		harness = await createScriptedSession({
			extensionPaths: pathsIn(order),
			responses: [
				writeDuplicates,
				// While this answer is being thought, the check finishes and its finding is appended
				// at the end of this turn, right before the reset the model asks for: never seen.
				thinkAfterWrite(() =>
					fauxAssistantMessage([fauxToolCall("new_context", { handoff: "Modules written; review next." })], {
						stopReason: "toolUse",
					}),
				),
				review(1),
				review(2),
				complete,
			],
		});
		await harness.prompt("/goal Write the alpha and beta modules");
		expect(harness.errors).toEqual([]);
		const boot = (index: number) =>
			texts(harness?.requests[index]?.messages ?? []).some((text) =>
				text.includes("[pi-reset] Context window"),
			);
		const firstInNewWindow = harness.requests.findIndex((_, index) => boot(index));
		expect(firstInNewWindow).toBeGreaterThan(0);
		// The model never saw the finding in the old window …
		for (let index = 0; index < firstInNewWindow; index++) expect(sawFinding(harness, index)).toBe(false);
		// … and it arrives in the new one.
		const seenAfter = harness.requests.some(
			(_, index) => index >= firstInNewWindow && sawFinding(harness as ScriptedSession, index),
		);
		expect(seenAfter).toBe(true);
	});
});
