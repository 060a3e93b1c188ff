/**
 * Edit distance between two short names (variable paths, filter names). Written here because the
 * Levenshtein packages in node_modules are only transitive dependencies of other tools; a direct
 * dependency would need an install. Two rows, O(a·b) time, for strings of a few dozen characters.
 */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length];
}

/** The closest candidate within `max` edits, if any. */
export function closest(word: string, candidates: Iterable<string>, max = 2): string | undefined {
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const c of candidates) {
    const d = levenshtein(word, c);
    if (d > 0 && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
