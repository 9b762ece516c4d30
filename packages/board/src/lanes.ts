/**
 * The sub-row of each span, so that spans overlapping in time are drawn one below the other: by start, each
 * in the first sub-row free by then (greedy, which needs as many sub-rows as spans overlap at once).
 */
export function lanesOf(spans: readonly { start: number; end: number }[]): number[] {
  const lanes = new Array<number>(spans.length);
  const endOfLane: number[] = [];
  const byStart = spans.map((_, index) => index).sort((a, b) => spans[a]!.start - spans[b]!.start || spans[a]!.end - spans[b]!.end);
  for (const index of byStart) {
    const span = spans[index]!;
    const free = endOfLane.findIndex((end) => end <= span.start);
    const lane = free < 0 ? endOfLane.length : free;
    endOfLane[lane] = span.end;
    lanes[index] = lane;
  }
  return lanes;
}
