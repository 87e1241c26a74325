import { describe, expect, it } from "vitest";
import type { GoalController } from "../src/adapters/controller.js";
import { FooterClock, nextFooterChange } from "../src/adapters/footer-clock.js";
import type { Timers } from "../src/adapters/wake.js";
import type { GoalRecord } from "../src/core/types.js";
import { goalRecord } from "./goal-record.js";

const goal = goalRecord;

/** Timers whose callbacks the test fires by hand. */
function manualTimers() {
	const pending = new Map<number, { fn: () => void; ms: number }>();
	let next = 0;
	const timers: Timers = {
		setTimeout(fn, ms) {
			pending.set(++next, { fn, ms });
			return next;
		},
		clearTimeout(handle) {
			pending.delete(handle as number);
		},
	};
	const fire = () => {
		const [id, timer] = [...pending][0] ?? [];
		if (id === undefined || !timer) throw new Error("no timer pending");
		pending.delete(id);
		timer.fn();
	};
	return { timers, pending, fire };
}

describe("the footer clock", () => {
	it("the footer's active time advances between events: every second under a minute, then every minute", () => {
		expect(nextFooterChange(goal(), 0)).toBe(1_000);
		expect(nextFooterChange(goal(), 2_400)).toBe(600);
		expect(nextFooterChange(goal({ clock: { activeMs: 59_000, since: 0 } }), 500)).toBe(500);
		expect(nextFooterChange(goal({ clock: { activeMs: 61_000, since: 0 } }), 0)).toBe(59_000);
	});

	it("a usage-limit countdown ticks until the retry; other waits and stopped goals have no clock", () => {
		const limited = goal({
			wait: { reason: "usage limit", resumeAt: 90_500, kind: "usage_limit" } as GoalRecord["wait"],
		});
		expect(nextFooterChange(limited, 0)).toBe(30_501);
		expect(nextFooterChange(limited, 60_000)).toBe(501);
		expect(nextFooterChange(limited, 91_000)).toBeUndefined();
		expect(nextFooterChange(goal({ wait: { reason: "CI", resumeAt: null } }), 0)).toBeUndefined();
		expect(nextFooterChange(goal({ status: "paused" }), 0)).toBeUndefined();
		expect(nextFooterChange(null, 0)).toBeUndefined();
	});

	it("one timer per runtime: re-planned only when the next change moves, stopped without a UI or a goal", () => {
		const { timers, pending, fire } = manualTimers();
		let now = 0;
		let refreshed = 0;
		const controller = {
			goal: goal() as GoalRecord | null,
			ctx: { hasUI: true } as { hasUI: boolean } | undefined,
			refreshFooter: () => refreshed++,
		};
		const clock = new FooterClock({
			controller: controller as unknown as GoalController,
			timers,
			now: () => now,
		});
		clock.sync();
		clock.sync();
		expect([...pending.values()].map((t) => t.ms)).toEqual([1_000]);
		now = 1_000;
		fire();
		expect(refreshed).toBe(1);
		expect([...pending.values()].map((t) => t.ms)).toEqual([1_000]);
		controller.goal = goal({ status: "paused" });
		clock.sync();
		expect(pending.size).toBe(0);
		controller.goal = goal();
		controller.ctx = { hasUI: false };
		clock.sync();
		expect(pending.size).toBe(0);
		controller.ctx = { hasUI: true };
		clock.sync();
		clock.stop();
		expect(pending.size).toBe(0);
	});
	it("a footer tick after dispose() (stale ctx, no session_shutdown) throws nothing", () => {
		const { timers, fire } = manualTimers();
		const controller = {
			goal: goal() as GoalRecord | null,
			ctx: { hasUI: true },
			refreshFooter: () => {
				throw new Error("This extension ctx is stale");
			},
		};
		const clock = new FooterClock({
			controller: controller as unknown as GoalController,
			timers,
			now: () => 0,
		});
		clock.sync();
		expect(() => fire()).not.toThrow();
	});
});
