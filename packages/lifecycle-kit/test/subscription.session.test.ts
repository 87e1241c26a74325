import { describe, expect, it } from "vitest";
import { type ArmedSubscription, createArmedSubscription } from "../src/index.js";
import { createScriptedSession, reply, type ScriptedSession } from "../src/testing/index.js";

let harness: ScriptedSession | undefined;

describe("armed subscriptions", () => {
	it("arm and disarm are idempotent and register each handler once", () => {
		const calls: string[] = [];
		const subscription = createArmedSubscription(
			() => {
				calls.push("on:a");
				return () => calls.push("off:a");
			},
			() => {
				calls.push("on:b");
				return () => calls.push("off:b");
			},
		);
		subscription.arm();
		subscription.arm();
		expect(subscription.armed).toBe(true);
		subscription.disarm();
		subscription.disarm();
		expect(subscription.armed).toBe(false);
		expect(calls).toEqual(["on:a", "on:b", "off:a", "off:b"]);
	});

	it("a disarmed context handler is not called by Pi, an armed one is called once per request", async () => {
		let seen = 0;
		let hook: ArmedSubscription | undefined;
		harness = await createScriptedSession({
			extensions: [
				(pi) => {
					hook = createArmedSubscription(() =>
						pi.on("context", () => {
							seen++;
						}),
					);
				},
			],
			responses: [reply("one"), reply("two"), reply("three")],
		});
		await harness.prompt("first");
		expect(seen).toBe(0);
		hook?.arm();
		await harness.prompt("second");
		expect(seen).toBe(1);
		hook?.disarm();
		await harness.prompt("third");
		expect(seen).toBe(1);
	});
});
