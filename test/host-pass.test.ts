/**
 * Each test pass drives the Pi it names: the dev pin, or with PI_LIFECYCLE_HOST=1.3.0 the oldest
 * supported Pi, both for this suite's imports and for the host the kit's harness runs (what an
 * extension loaded through Pi's loader sees as `@earendil-works/pi-coding-agent`). The harness is
 * the kit's dist here (the packages' check, packages/lifecycle-kit/test/host-pass.session.test.ts,
 * runs its sources); the probe is theirs.
 */
import { VERSION } from "@earendil-works/pi-coding-agent";
import { createScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { expect, it } from "vitest";
import { expectedHost, hostVersion, loaderHosts } from "../packages/lifecycle-kit/test/host-pass.js";

it(`the ${hostVersion} pass runs the harness and Pi's loader on Pi ${expectedHost}`, async () => {
	const { errors, loader } = await loaderHosts(createScriptedSession);
	expect(errors).toEqual([]);
	expect({ suite: VERSION, loader }).toEqual({ suite: expectedHost, loader: [`host-${expectedHost}`] });
});
