/**
 * Test-only Pi extension for the real CLI: registers a faux provider `pi-lifecycle-faux` (model
 * `scripted`) whose responses come from a script module, and logs every provider request.
 *
 * - `PI_LIFECYCLE_FAUX_SCRIPT`: path of a module whose default export is
 *   `(kit: FauxKit) => FauxResponseStep[]` (steps may be functions of the request context).
 * - `PI_LIFECYCLE_FAUX_LOG`: optional path; one JSON line per provider request is appended.
 * - `PI_LIFECYCLE_FAUX_CONTEXT_WINDOW`: optional context window of the model (default 128,000).
 *
 * The script receives pi-ai's faux helpers from the host, so it needs no imports of its own.
 */
import { appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxProvider,
	fauxText,
	fauxToolCall,
} from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** What a script module receives. */
export interface FauxKit {
	fauxAssistantMessage: typeof fauxAssistantMessage;
	fauxText: typeof fauxText;
	fauxToolCall: typeof fauxToolCall;
}

export default async function fauxCliProvider(pi: ExtensionAPI): Promise<void> {
	const scriptPath = process.env.PI_LIFECYCLE_FAUX_SCRIPT;
	const logPath = process.env.PI_LIFECYCLE_FAUX_LOG;
	const faux = fauxProvider({
		provider: "pi-lifecycle-faux",
		// A smaller window lets a CLI test reach Pi's threshold compaction with a prompt that fits in argv.
		models: [
			{
				id: "scripted",
				contextWindow: Number(process.env.PI_LIFECYCLE_FAUX_CONTEXT_WINDOW) || 128_000,
				maxTokens: 8_000,
			},
		],
	});
	let steps: FauxResponseStep[] = [];
	if (scriptPath) {
		const module = (await import(pathToFileURL(scriptPath).href)) as {
			default: (kit: FauxKit) => FauxResponseStep[];
		};
		steps = module.default({ fauxAssistantMessage, fauxText, fauxToolCall });
	}
	faux.setResponses(
		steps.map(
			(step): FauxResponseStep =>
				async (context, options, state, model) => {
					if (logPath) {
						appendFileSync(
							logPath,
							`${JSON.stringify({ index: state.callCount, messages: context.messages })}\n`,
						);
					}
					return typeof step === "function" ? step(context, options, state, model) : step;
				},
		),
	);
	pi.registerProvider(faux.provider);
}
