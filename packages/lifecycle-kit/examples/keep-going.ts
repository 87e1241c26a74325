/**
 * Example extension built on lifecycle-kit: "keep going until the model says DONE".
 *
 * `/keep-going <task>` starts a task. The first prompt is an idle wake-up, so it goes through an
 * {@link IdleDispatcher} (sent only when Pi is idle with nothing queued, single flight). After that
 * every continuation rides Pi's `agent_before_settle` boundary through a boundary participant that
 * is armed only while a task is active: when the run is about to settle and the last answer does
 * not contain `DONE`, it adds one nudge message and asks for exactly one more request.
 *
 * It is small on purpose; a real extension would persist its task and hold `workflow:mutex:v1`.
 * It imports the kit by its package name, as your extension will; it ships in the package, so it
 * resolves the same way from an install.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { VERSION } from "@earendil-works/pi-coding-agent";
import {
	createBoundaryParticipant,
	guardHost,
	IdleDispatcher,
	type StaleGuard,
	trackLifecycle,
} from "@pi-lifecycle/lifecycle-kit";

/** The word that ends a task. */
export const DONE = "DONE";

/** Options for {@link keepGoing}. */
export interface KeepGoingOptions {
	/** Most nudges per task before giving up. Default 5. */
	readonly maxNudges?: number;
}

interface Task {
	readonly text: string;
	readonly guard: StaleGuard;
	nudges: number;
}

function lastAssistantText(ctx: ExtensionContext): string | undefined {
	const leaf = ctx.sessionManager.getLeafEntry();
	if (leaf?.type !== "message" || leaf.message.role !== "assistant") return undefined;
	return leaf.message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

/** Builds the extension factory. */
export function keepGoing(options: KeepGoingOptions = {}): (pi: ExtensionAPI) => void {
	const maxNudges = options.maxNudges ?? 5;
	return (pi) => {
		if (!guardHost(pi, "keep-going", VERSION).supported) return;
		const identity = trackLifecycle(pi);
		const dispatcher = new IdleDispatcher<ExtensionContext>();
		let task: Task | undefined;

		const stop = () => {
			task = undefined;
			participant.disarm();
			dispatcher.cancelAll();
		};

		const participant = createBoundaryParticipant(pi, {
			events: ["agent_before_settle"],
			propose(event, ctx) {
				if (!task?.guard.isCurrent()) return void stop();
				if (event.outcome !== "completed") return undefined;
				if (lastAssistantText(ctx)?.includes(DONE) || task.nudges >= maxNudges) return void stop();
				task.nudges++;
				return {
					drafts: [
						{
							type: "custom_message",
							customType: "keep-going/nudge",
							content: `Keep going on: ${task.text}. Say ${DONE} when it is finished.`,
							display: true,
						},
					],
					continue: true,
				};
			},
		});

		pi.registerCommand("keep-going", {
			description: "Work on a task until the model says DONE: /keep-going <task> | stop",
			async handler(args, ctx) {
				const text = args.trim();
				if (text === "stop" || text === "") {
					if (text === "") ctx.ui.notify("Usage: /keep-going <task> | stop", "warning");
					stop();
					return;
				}
				const guard = identity.guard();
				task = { text, guard, nudges: 0 };
				dispatcher.request({
					key: "keep-going:start",
					guard,
					send: () => {
						// Arm only now: a run that was busy when the command came must not be nudged.
						participant.arm();
						pi.sendMessage(
							{
								customType: "keep-going/start",
								content: `Task: ${text}. Say ${DONE} when it is finished.`,
								display: true,
							},
							{ triggerTurn: true },
						);
					},
				});
				// Idle now: sends at once. Busy: the agent_settled handler below sends it later.
				await dispatcher.flush(ctx);
			},
		});

		pi.on("agent_settled", (_event, ctx) => {
			// Return fast: start the flush, never await it here.
			void dispatcher.flush(ctx);
		});
		pi.on("session_shutdown", () => stop());
	};
}

export default keepGoing();
