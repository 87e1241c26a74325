/**
 * `@pi-lifecycle/lifecycle-kit/text`: text bounds that never split a character. Pure (no runtime
 * import at all), so a package's pure core may import it; the main entry exports the same names.
 */
export { cutText, cutTextEnd, hasLoneSurrogate, sliceText } from "./text-cut.js";
