/**
 * One owner of goals per session. Other goal extensions (narumiruna's pi-goal with our tool names,
 * nijaru's pi-goal with other tool names and the same `pi-goal/*` entry types) register
 * goal_complete/goal_blocked/goal_wait or a /goal command. Pi compares the tools every factory
 * registered once all have run and reports each clash as a load error (fatal in print mode), and it
 * renames two /goal commands to /goal:1 and /goal:2. So pi-goal registers its tools and /goal only at
 * session_start, after looking (peer-facts.ts): another extension's goal tool or /goal command keeps
 * it dormant for the runtime; another extension's goal state in the session keeps it dormant in
 * that session. Dormant: no state, prompts or bus replies, and one notice naming the other
 * extension and how to choose. When the other one takes over later (its tools or /goal appear after
 * ours), the same notice, never a tool-allowlist message.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	findGoalPeer,
	type GoalPeer,
	ownGoalSource,
	type PeerHost,
	sessionHasForeignGoalState,
} from "./peer-facts.js";

/** The one notice: which extension handles goals, and how to choose. */
export function peerNotice(peer: GoalPeer): string {
	const who = peer.source ? `Another goal extension (${peer.source})` : "Another goal extension";
	return `pi-goal: off in this Pi. ${who} ${peer.what}, so it handles goals and /goal here. To use pi-goal instead, remove that extension (pi list shows it, pi remove <its source>) and start Pi again.`;
}

/** The notice for a session whose goal state another goal extension wrote. */
export const FOREIGN_SESSION_NOTICE =
	"pi-goal: off in this session. Its goal state was written by another goal extension, so pi-goal leaves it alone here. Start a new session (/new) to use pi-goal, or use the extension that wrote it.";

/** What {@link Dormancy.check} decided at a session_start. */
export interface DormancyCheck {
	/** Why pi-goal is dormant now, if it is. */
	readonly reason?: string;
	/** The reason is new (say it once). */
	readonly fresh: boolean;
}

/** Dormancy of one runtime (another extension's goal tools or /goal) or one session (its goal state). */
export class Dormancy {
	#runtime: string | undefined;
	#session: string | undefined;
	#own: { source?: string } | undefined;

	/**
	 * Decides at every session_start, before anything of ours registers: another extension's goal
	 * tool or /goal command makes the runtime dormant; otherwise our tools and /goal register (once)
	 * and a session whose goal state another extension wrote is dormant by itself.
	 */
	check(
		pi: PeerHost & Pick<ExtensionAPI, "getAllTools">,
		registerOurs: () => void,
		branch: () => readonly unknown[] = () => [],
	): DormancyCheck {
		if (this.#runtime) return { reason: this.#runtime, fresh: false };
		const peer = findGoalPeer(pi, this.#own);
		if (peer) {
			this.#runtime = peerNotice(peer);
			return { reason: this.#runtime, fresh: true };
		}
		if (!this.#own) {
			registerOurs();
			const source = ownGoalSource(pi);
			this.#own = source === undefined ? {} : { source };
		}
		const was = this.#session;
		this.#session = sessionHasForeignGoalState(branch()) ? FOREIGN_SESSION_NOTICE : undefined;
		return { reason: this.#session, fresh: this.#session !== undefined && was === undefined };
	}

	/**
	 * Another goal extension took over after ours registered (its tools or /goal appeared later):
	 * the runtime becomes dormant. Returns the notice when that happened just now, else undefined.
	 */
	takeover(pi: PeerHost): string | undefined {
		if (this.#runtime || !this.#own) return undefined;
		const peer = findGoalPeer(pi, this.#own);
		if (!peer) return undefined;
		this.#runtime = peerNotice(peer);
		return this.#runtime;
	}

	/** Whether pi-goal is dormant (false before the first check). */
	get dormant(): boolean {
		return this.reason !== undefined;
	}

	/** Why pi-goal is dormant, if it is. */
	get reason(): string | undefined {
		return this.#runtime ?? this.#session;
	}
}
