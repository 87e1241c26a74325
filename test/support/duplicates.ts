/** Source text with a function long enough for jscpd to report a copy of it. */
export function duplicatedFunction(name: string): string {
	return `export function ${name}(items: number[]): number {
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
}
