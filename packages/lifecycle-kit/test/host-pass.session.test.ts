/**
 * Each test pass of the packages (vitest.shared.ts) drives the Pi it names: the dev pin, or with
 * PI_LIFECYCLE_HOST=1.3.0 the oldest supported Pi, both for this suite's imports and for the host the kit's harness runs (what an
 * extension loaded through Pi's loader sees as `@earendil-works/pi-coding-agent`). The root
 * test/host-pass.test.ts checks the same for the root suite with the kit's dist (host-pass.ts).
 */
import { VERSION } from "@earendil-works/pi-coding-agent";
import { expect, it } from "vitest";
import { createScriptedSession } from "../src/testing/index.js";
import { expectedHost, hostVersion, loaderHosts } from "./host-pass.js";

it(`the ${hostVersion} pass runs the harness and Pi's loader on Pi ${expectedHost}`, async () => {
	const { errors, loader } = await loaderHosts(createScriptedSession);
	expect(errors).toEqual([]);
	expect({ suite: VERSION, loader }).toEqual({ suite: expectedHost, loader: [`host-${expectedHost}`] });
});
