/** Turns Ajv's validation errors into one plain message per problem, each naming its field path. */

/** The parts of an Ajv error object this module reads (Ajv runs with `verbose: true`). */
export interface ValidationIssue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: { 'x-message'?: string; enum?: unknown[] };
  /** The value that failed (Ajv's `verbose`). */
  data?: unknown;
  /** The key whose name failed, for the problems of a `propertyNames` schema. */
  propertyName?: string;
}

/**
 * Says why a value fails a named format, when the field's own message would not (an AM/PM hour
 * past 12 in a date-time); undefined to keep that message. Formats belong to the caller.
 */
export type FormatExplainer = (format: string, value: unknown) => string | undefined;

/** At most this many problems are reported for one body. */
export const MAX_PROBLEMS = 100;

const articles: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** `/Items/0/Receiving Priority` → `Items[0].Receiving Priority` */
export function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  let path = '';
  for (const segment of segments) {
    path += /^\d+$/.test(segment) ? `[${segment}]` : path ? `.${segment}` : segment;
  }
  return path;
}

function describe(issue: ValidationIssue, context: string | undefined, explainFormat?: FormatExplainer): string {
  const path = fieldPath(issue.instancePath);
  const subject = path || (context === 'body' || !context ? 'Request body' : context);
  const custom = issue.parentSchema?.['x-message'];
  const p = issue.params;
  // A key refused by its name (`propertyNames`): the problem is the key, named in the path.
  if (issue.propertyName !== undefined) return `${fieldPath(issue.instancePath, issue.propertyName)} ${custom ?? 'is not an allowed name'}`;
  switch (issue.keyword) {
    case 'required':
      // A conditional requirement names its condition (`is required when SCACCode is empty`).
      return `${fieldPath(issue.instancePath, String(p.missingProperty))} ${custom ?? 'is required'}`;
    case 'if':
      // The failure of the `then`/`else` branch is reported by its own keyword.
      return '';
    case 'propertyNames':
      // Reported by the failure inside it, which names the key.
      return '';
    case 'type': {
      const types = String(p.type).split(',');
      return `${subject} must be ${types.map((t) => articles[t] ?? t).join(' or ')}`;
    }
    case 'minLength':
      if (custom) return `${subject} ${custom}`;
      return p.limit === 1 ? `${subject} must not be empty` : `${subject} must be at least ${p.limit} characters`;
    case 'maxLength':
      return `${subject} must be at most ${p.limit} characters`;
    case 'minimum':
      return `${subject} must be at least ${p.limit}`;
    case 'maximum':
      return `${subject} must be at most ${p.limit}`;
    case 'minItems':
      return `${subject} must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `${subject} must have at most ${p.limit} items`;
    case 'enum':
      // A nullable enum lists null among its values; the message names the real choices.
      return `${subject} must be one of: ${(p.allowedValues as unknown[])
        .filter((v) => v !== null)
        .map((v) => (v === '' ? '""' : String(v)))
        .join(', ')}`;
    case 'const':
      return `${subject} must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern':
      return `${subject} ${custom ?? 'has an invalid format'}`;
    case 'format':
      return `${subject} ${explainFormat?.(String(p.format), issue.data) ?? custom ?? `must be a valid ${p.format}`}`;
    case 'additionalProperties':
      return `${fieldPath(issue.instancePath, String(p.additionalProperty))} is not allowed`;
    case 'anyOf':
    case 'oneOf':
      return `${subject} ${custom ?? 'has an invalid value'}`;
    default:
      return `${subject} ${custom ?? issue.message ?? 'is invalid'}`;
  }
}

/**
 * One message per problem, in the order Ajv found them, at most {@link MAX_PROBLEMS}: no message is
 * built past them. Where a union (anyOf) fails, the failures of its branches are folded into one
 * message for the union's field. A text over its `maxLength` is refused for its length alone: what
 * else its checks found (its format, its pattern) is not explained.
 */
export function formatValidationErrors(issues: ValidationIssue[], context?: string, explainFormat?: FormatExplainer): string[] {
  const insideFailedUnion = failedUnionFinder(issues);
  const tooLong = new Set<string>();
  for (const issue of issues) {
    if (issue.keyword === 'maxLength' && !insideFailedUnion(issue)) tooLong.add(issue.instancePath);
  }
  const messages = new Set<string>();
  for (const issue of issues) {
    if (messages.size === MAX_PROBLEMS) break;
    if (insideFailedUnion(issue) || (issue.keyword !== 'maxLength' && tooLong.has(issue.instancePath))) continue;
    const message = describe(issue, context, explainFormat);
    if (message) messages.add(message);
  }
  return [...messages];
}

/**
 * Whether an issue lies inside a union that failed: under the union's schema, at or below its
 * value. Only an issue whose schema path passes through a union can be; it looks up the failed
 * unions on its own value's path, however many unions failed in the body.
 */
function failedUnionFinder(issues: ValidationIssue[]): (issue: ValidationIssue) => boolean {
  const unionsAt = new Map<string, ValidationIssue[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'anyOf' && issue.keyword !== 'oneOf') continue;
    const unions = unionsAt.get(issue.instancePath);
    if (unions) unions.push(issue);
    else unionsAt.set(issue.instancePath, [issue]);
  }
  if (unionsAt.size === 0) return () => false;
  return (issue) => {
    if (!issue.schemaPath.includes('/anyOf/') && !issue.schemaPath.includes('/oneOf/')) return false;
    // The issue's own path and each path above it: '/a/0/b', '/a/0', '/a', ''.
    let path = issue.instancePath;
    for (;;) {
      for (const union of unionsAt.get(path) ?? []) {
        if (union !== issue && issue.schemaPath.startsWith(`${union.schemaPath}/`)) return true;
      }
      if (path === '') return false;
      path = path.slice(0, path.lastIndexOf('/'));
    }
  };
}
