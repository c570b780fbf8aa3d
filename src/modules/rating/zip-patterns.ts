/**
 * ZIP pattern lists of a rate card, compiled into one matcher: `"995"` (a ZIP3), `"995-999"` (a
 * ZIP3 range), `"96799"` (a ZIP), `"96701-96898"` (a ZIP range). List references (`"@das"`) are
 * expanded by the caller before compiling.
 */
export interface ZipMatcher {
  matches(zip5: string): boolean;
}

/** Checks a pattern's range bounds; undefined when it is good. */
export function rangeProblem(pattern: string): string | undefined {
  const [low, high] = pattern.split('-');
  if (high !== undefined && low! > high) return `${pattern} is a range whose start is after its end`;
  return undefined;
}

export function compileZipPatterns(patterns: readonly string[]): ZipMatcher {
  const zip3 = new Set<string>();
  const zip5 = new Set<string>();
  const zip5Ranges: [number, number][] = [];
  for (const pattern of patterns) {
    const [low, high] = pattern.split('-') as [string, string | undefined];
    if (low.length === 3) {
      // At most a thousand ZIP3s: expanded, so a lookup is one set probe.
      for (let n = Number(low); n <= Number(high ?? low); n++) zip3.add(String(n).padStart(3, '0'));
    } else if (high === undefined) {
      zip5.add(low);
    } else {
      zip5Ranges.push([Number(low), Number(high)]);
    }
  }
  return {
    matches(zip: string) {
      if (zip5.has(zip) || zip3.has(zip.slice(0, 3))) return true;
      if (zip5Ranges.length === 0) return false;
      const n = Number(zip);
      return zip5Ranges.some(([low, high]) => n >= low && n <= high);
    },
  };
}
