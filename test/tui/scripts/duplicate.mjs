// The function of test/support/duplicates.ts, for faux scripts (plain Node modules cannot import it).
export const duplicatedFunction = (name) => `export function ${name}(items: number[]): number {
	let total = 0;
	for (const item of items) {
		if (item > 10) {
			total += item * 2;
		} else if (item > 5) {
			total += item + 3;
		} else {
			total -= 1;
		}
	}
	const scaled = total * 1.5;
	const rounded = Math.round(scaled * 100) / 100;
	if (rounded > 1000) {
		return 1000;
	}
	return rounded;
}
`;
