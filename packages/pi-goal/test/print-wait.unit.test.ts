/**
 * `/goal` in print and json mode stays until the work it started settles. In an SDK host the command
 * context's waitForIdle resolves at once; the wait then follows the run's `agent_settled` instead of
 * polling on a timer for the whole run (the goal-active bench: a timer and an immediate every 20 ms).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { followStartedWork } from "../src/adapters/command-register.js";

afterEach(() => {
	vi.useRealTimers();
});

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

function host(mode: "print" | "tui") {
	let idle = false;
	const handlers = new Set<() => void>();
	return {
		ctx: { mode, waitForIdle: async () => {}, isIdle: () => idle },
		pi: {
			on: (event: string, handler: () => void) => {
				expect(event).toBe("agent_settled");
				handlers.add(handler);
				return () => handlers.delete(handler);
			},
		},
		handlers,
		settle() {
			idle = true;
			for (const handler of [...handlers]) handler();
		},
	};
}

describe("the print-mode /goal wait", () => {
	it("an SDK host's wait (waitForIdle resolves at once) ends at the run's agent_settled, without a timer poll", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		const h = host("print");
		let returned = false;
		const waiting = followStartedWork(h.ctx as never, h.pi as never).then(() => {
			returned = true;
		});
		for (let i = 0; i < 3; i++) await macrotask();
		expect(h.handlers.size).toBe(1);
		expect(vi.getTimerCount()).toBe(1); // the fallback recheck only, never fired while the run goes on
		expect(returned).toBe(false);
		h.settle();
		await waiting;
		expect(returned).toBe(true);
		expect(h.handlers.size).toBe(0);
		expect(vi.getTimerCount()).toBe(0);
	});

	it("without a settle the idle check runs again after the fallback delay", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		const h = host("print");
		let returned = false;
		const waiting = followStartedWork(h.ctx as never, h.pi as never).then(() => {
			returned = true;
		});
		for (let i = 0; i < 3; i++) await macrotask();
		(h.ctx as { isIdle: () => boolean }).isIdle = () => true;
		await vi.advanceTimersByTimeAsync(1_000);
		await waiting;
		expect(returned).toBe(true);
		expect(h.handlers.size).toBe(0);
	});

	it("the TUI returns at once", async () => {
		const h = host("tui");
		await followStartedWork(h.ctx as never, h.pi as never);
		expect(h.handlers.size).toBe(0);
	});
});
