/**
 * Stand-ins for the other goal extensions users install beside ours (inline, for scripted sessions;
 * the real-CLI stand-ins are test/fixtures/peers/goal-*.ts at the repository root):
 * - {@link sameToolsPeer}: narumiruna's pi-goal: goal_complete/goal_blocked/goal_wait and /goal,
 *   registered while Pi loads it, or (`late`) at its session_start, hiding the two completion
 *   tools until its own first goal (its tool policy);
 * - {@link otherToolsPeer}: nijaru's pi-goal: other tool names, a /goal command, `pi-goal/state`
 *   entries and `pi-goal/continuation` messages of its own shape, a context filter that keeps only
 *   its own current goal's messages, and a before_agent_start that aborts a continuation that is
 *   not its current goal's.
 */
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

/** What a stand-in saw. */
export interface PeerLog {
	commands: string[];
	tools: string[];
	aborted: number;
}

export function peerLog(): PeerLog {
	return { commands: [], tools: [], aborted: 0 };
}

/** narumiruna-like: our tool names and /goal; `late` registers them at its session_start. */
export function sameToolsPeer(log: PeerLog, options: { late?: boolean; name?: string } = {}) {
	const factory: ExtensionFactory = (pi: ExtensionAPI) => {
		const register = () => {
			for (const name of ["goal_complete", "goal_blocked", "goal_wait"])
				pi.registerTool({
					name,
					label: name,
					description: `peer ${name}`,
					parameters: Type.Object({ goal_id: Type.String() }),
					async execute() {
						log.tools.push(name);
						return { content: [{ type: "text", text: "peer ok" }], details: {} };
					},
				});
			pi.registerCommand("goal", {
				description: "peer goal",
				handler: async (args) => {
					log.commands.push(args);
				},
			});
		};
		if (!options.late) return register();
		pi.on("session_start", () => {
			register();
			// Its tool policy: the completion tools stay hidden until its own first goal.
			pi.setActiveTools(
				pi.getActiveTools().filter((name) => name !== "goal_complete" && name !== "goal_blocked"),
			);
		});
	};
	return { name: options.name ?? "same-tools-goal", factory };
}

const STATE = "pi-goal/state";
const CONTINUATION = "pi-goal/continuation";

/** nijaru-like: other tool names, /goal, and the same `pi-goal/*` entry and message types. */
export function otherToolsPeer(log: PeerLog, options: { command?: boolean } = {}) {
	const handle = { start: (_objective: string) => {} };
	const factory: ExtensionFactory = (pi: ExtensionAPI) => {
		let current: string | undefined;
		const start = (objective: string) => {
			current = `nj-${log.commands.length + 1}`;
			pi.appendEntry(STATE, { id: current, objective, status: "active", costUsed: 0 });
			pi.sendMessage(
				{
					customType: CONTINUATION,
					content: `Work on: ${objective}`,
					display: false,
					details: { goalId: current, type: "dispatch_requested" },
				},
				{ triggerTurn: true },
			);
		};
		handle.start = start;
		for (const name of ["create_goal", "update_goal"])
			pi.registerTool({
				name,
				label: name,
				description: `other ${name}`,
				parameters: Type.Object({ objective: Type.Optional(Type.String()) }),
				async execute(_id, params) {
					log.tools.push(name);
					if (name === "create_goal") start(params.objective ?? "x");
					return { content: [{ type: "text", text: "ok" }], details: {} };
				},
			});
		if (options.command !== false)
			pi.registerCommand("goal", {
				description: "other goal",
				handler: async (args) => {
					log.commands.push(args);
					start(args);
				},
			});
		// Its context filter: only its current goal's pi-goal/* messages stay.
		pi.on("context", (event) => ({
			messages: event.messages.filter((message) => {
				const m = message as { role?: string; customType?: string; details?: { goalId?: string } };
				if (m.role !== "custom" || !m.customType?.startsWith("pi-goal/")) return true;
				return m.details?.goalId === current;
			}),
		}));
		pi.on("before_agent_start", (event, ctx) => {
			if (event.messageType !== "custom") return;
			const details = event.message.details as { goalId?: string } | undefined;
			if (event.message.customType === CONTINUATION && details?.goalId !== current) {
				log.aborted++;
				ctx.abort();
			}
		});
		// Its own runs write its state.
		pi.on("agent_settled", () => {
			if (current) pi.appendEntry(STATE, { id: current, objective: "x", status: "active", costUsed: 0.01 });
		});
	};
	return { name: "other-tools-goal", factory, start: (objective: string) => handle.start(objective) };
}

/**
 * Pi's trigger-compact example (and auto-compacting extensions): calls `ctx.compact()` at a
 * turn_end while the goal's run is under way, when `control.armed` is set (once). Pi aborts the
 * run to compact. `control.result` records the compaction's end.
 */
export function triggerCompactPeer(control: { armed: boolean; result?: "complete" | "error" }) {
	const factory: ExtensionFactory = (pi: ExtensionAPI) => {
		pi.on("turn_end", (_event, ctx) => {
			if (!control.armed) return;
			control.armed = false;
			ctx.compact({
				onComplete: () => {
					control.result = "complete";
				},
				onError: () => {
					control.result = "error";
				},
			});
		});
	};
	return { name: "trigger-compact", factory };
}
