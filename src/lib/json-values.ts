import { MAX_PROBLEMS, type ValidationIssue } from './validation-messages.js';

/**
 * What a parsed JSON body must be for Wharf to keep it as sent (docs/operations.md): nested at most
 * {@link MAX_JSON_DEPTH} levels, every number within ±(2^53 − 1), every text well-formed UTF-16
 * without a NUL character. JSON.parse reads any depth, but JSON.stringify, the idempotency hash and
 * the failure ACK recurse and overflow the stack; a number beyond 2^53 − 1 has already been
 * rounded to another one; PostgreSQL refuses a NUL in text, and both databases store a lone
 * surrogate as U+FFFD, so two different texts would become one.
 */

/** The deepest nesting of arrays and objects a body may have; the body itself is level 1. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` can be stored exactly: well-formed UTF-16 (no lone surrogate) and no NUL. Texts
 * read from JSON meet this unless a `\u` escape made them otherwise.
 */
export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/** What keeps `text` from being stored exactly (a lone surrogate, a NUL character), if anything. */
export function textProblem(text: string): string | undefined {
  if (!text.isWellFormed()) return 'a lone surrogate (an unpaired \\uD800-\\uDFFF escape)';
  if (text.includes('\u0000')) return 'a NUL character (\\u0000)';
  return undefined;
}

/**
 * An integer beyond 2^53 − 1 reaches JavaScript already rounded, but always to a number whose
 * magnitude is at least 2^53 (rounding is monotonic and 2^53 is exact), so checking the parsed
 * number finds every one, without reading the text again.
 */
function leafProblem(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem && `must not contain ${problem}`;
  }
  if (typeof value === 'number' && !(Math.abs(value) <= Number.MAX_SAFE_INTEGER)) {
    return 'must be between -9007199254740991 and 9007199254740991 (2^53 - 1)';
  }
  return undefined;
}

const pointer = (parent: string, key: string | number) =>
  `${parent}/${typeof key === 'number' ? key : key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

const issue = (instancePath: string, message: string): ValidationIssue => ({
  instancePath,
  schemaPath: '#/json-values',
  keyword: 'json-values',
  params: {},
  message,
});

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

export interface JsonInspection {
  /** Arrays and objects nest deeper than the limit: nothing else was looked at. */
  tooDeep: boolean;
  /** Numbers and texts that cannot be kept as sent, each with its JSON pointer. */
  problems: ValidationIssue[];
}

export interface InspectOptions {
  maxDepth?: number;
  /**
   * Whether to look at texts and keys. A text parsed from JSON can hold a NUL or a lone surrogate
   * only through a `\u` escape, so a reader that saw none in the JSON text may skip them.
   */
  texts?: boolean;
}

/**
 * Walks a parsed JSON value without recursion (a stack of containers), checking its depth and
 * every number, and every text and key unless told otherwise. A bad key is reported on its object
 * and nothing below it is quoted, so no message carries a text that could not be stored.
 */
export function inspectJson(value: unknown, { maxDepth = MAX_JSON_DEPTH, texts = true }: InspectOptions = {}): JsonInspection {
  const problems: ValidationIssue[] = [];
  const report = (path: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(issue(path, message));
  };
  if (!isContainer(value)) {
    const problem = leafProblem(value);
    if (problem) report('', problem);
    return { tooDeep: false, problems };
  }
  /** `quiet`: below a key that cannot be quoted; only the depth is checked there. */
  const containers: { value: object; path: string; depth: number; quiet: boolean }[] = [{ value, path: '', depth: 1, quiet: false }];
  /** Looks at one member; false when it is a container one level too deep. */
  const visit = (child: unknown, path: string, key: string | number, depth: number, quiet: boolean): boolean => {
    if (typeof child === 'object' && child !== null) {
      if (depth === maxDepth) return false;
      containers.push({ value: child, path: quiet ? path : pointer(path, key), depth: depth + 1, quiet });
    } else if (!quiet && (typeof child === 'number' || (texts && typeof child === 'string'))) {
      const problem = leafProblem(child);
      if (problem) report(pointer(path, key), problem);
    }
    return true;
  };
  while (containers.length > 0) {
    const { value: container, path, depth, quiet } = containers.pop()!;
    if (Array.isArray(container)) {
      for (let index = 0; index < container.length; index++) {
        if (!visit(container[index], path, index, depth, quiet)) return { tooDeep: true, problems: [] };
      }
      continue;
    }
    for (const key in container) {
      let quietMember = quiet;
      if (texts && !quiet) {
        const keyProblem = textProblem(key);
        if (keyProblem) {
          report(path, `must not have a key that contains ${keyProblem}`);
          quietMember = true;
        }
      }
      if (!visit((container as Record<string, unknown>)[key], path, key, depth, quietMember)) return { tooDeep: true, problems: [] };
    }
  }
  return { tooDeep: false, problems };
}
