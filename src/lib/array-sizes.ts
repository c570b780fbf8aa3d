import { MAX_PROBLEMS, type ValidationIssue } from './validation-messages.js';

/**
 * Array sizes first. Ajv, with `allErrors`, checks every element of an array even when the array
 * is over its `maxItems`, and builds a problem for each bad one: a body of millions of small
 * elements costs seconds and as many error objects. So before the validator runs, one walk along
 * the schema compares each array with its `maxItems`, without looking into an array that is over
 * it, and stops at {@link MAX_PROBLEMS} problems. A body with such an array is refused with these
 * problems alone; a body within every array limit goes on to the validator, whose work the limits
 * then bound (texts over their `maxLength` are refused there, unread: lib/validation-messages).
 *
 * The problems have the shape of Ajv's own (keyword, params, paths), so that they read exactly as
 * the validator's messages would. A union (`anyOf`/`oneOf`) is one problem, like the validator's
 * folded message, when every branch that takes the value's type has an array over its limit; when
 * one branch takes the value within its limits, or none takes its type, the walk leaves the union
 * to the validator.
 */

interface JsonSchema {
  type?: string | string[];
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema | JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $id?: string;
}

/** Where the walk is: the value's JSON pointer and the schema's, as Ajv writes them. */
interface Place {
  instancePath: string;
  schemaPath: string;
}

/** The problems found so far, up to a capacity. */
class Findings {
  readonly issues: ValidationIssue[] = [];
  constructor(private readonly capacity: number) {}
  get full(): boolean {
    return this.issues.length >= this.capacity;
  }
  add(issue: ValidationIssue): void {
    if (!this.full) this.issues.push(issue);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether a schema's `type` (if it has one) admits the value; an integer is a number too. */
function admitsType(schema: JsonSchema, value: unknown): boolean {
  if (schema.type === undefined) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = jsonTypeOf(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

const escapeKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The walk of one root schema: its `$id`s resolved, its `patternProperties` compiled once. */
class ArrayWalk {
  private readonly byId = new Map<string, JsonSchema>();
  private readonly patterns = new Map<string, RegExp>();

  constructor(private readonly root: JsonSchema) {
    this.collectIds(root, new Set());
  }

  private collectIds(schema: unknown, seen: Set<unknown>): void {
    if (schema === null || typeof schema !== 'object' || seen.has(schema)) return;
    seen.add(schema);
    const { $id } = schema as JsonSchema;
    if (typeof $id === 'string' && !this.byId.has($id)) this.byId.set($id, schema as JsonSchema);
    for (const member of Object.values(schema)) this.collectIds(member, seen);
  }

  private resolve(ref: string): JsonSchema | undefined {
    return ref === '#' ? this.root : this.byId.get(ref);
  }

  private pattern(source: string): RegExp {
    let compiled = this.patterns.get(source);
    // As Ajv compiles a schema's patterns (`unicode` on by default).
    if (!compiled) this.patterns.set(source, (compiled = new RegExp(source, 'u')));
    return compiled;
  }

  check(schema: JsonSchema, value: unknown, place: Place, found: Findings): void {
    // Only containers can hold an array.
    if (found.full || value === null || typeof value !== 'object') return;
    if (typeof schema.$ref === 'string') {
      const target = this.resolve(schema.$ref);
      if (target) this.check(target, value, { ...place, schemaPath: `${place.schemaPath}/$ref` }, found);
    }
    for (const [index, member] of (schema.allOf ?? []).entries()) {
      this.check(member, value, { ...place, schemaPath: `${place.schemaPath}/allOf/${index}` }, found);
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (branches) this.checkUnion(schema, keyword, branches, value, place, found);
    }
    if (!admitsType(schema, value)) return;
    if (Array.isArray(value)) this.checkArray(schema, value, place, found);
    else if (isObject(value)) this.checkObject(schema, value, place, found);
  }

  private checkArray(schema: JsonSchema, value: unknown[], place: Place, found: Findings): void {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      // Its elements are not looked at: there may be millions.
      found.add({
        instancePath: place.instancePath,
        schemaPath: `${place.schemaPath}/maxItems`,
        keyword: 'maxItems',
        params: { limit: schema.maxItems },
        message: `must NOT have more than ${schema.maxItems} items`,
        parentSchema: schema as ValidationIssue['parentSchema'],
      });
      return;
    }
    const { items } = schema;
    if (!items) return;
    const tuple = Array.isArray(items);
    for (let index = 0; index < value.length && !found.full; index++) {
      const itemSchema = tuple ? items[index] : items;
      if (!itemSchema) break;
      this.check(
        itemSchema,
        value[index],
        { instancePath: `${place.instancePath}/${index}`, schemaPath: `${place.schemaPath}/items${tuple ? `/${index}` : ''}` },
        found,
      );
    }
  }

  private checkObject(schema: JsonSchema, value: Record<string, unknown>, place: Place, found: Findings): void {
    const properties = schema.properties ?? {};
    for (const [key, member] of Object.entries(properties)) {
      if (found.full) return;
      if (Object.hasOwn(value, key)) this.check(member, value[key], this.placeOf(place, key, `properties/${escapeKey(key)}`), found);
    }
    const { patternProperties, additionalProperties } = schema;
    const others = typeof additionalProperties === 'object' ? additionalProperties : undefined;
    if (!patternProperties && !others) return;
    for (const key of Object.keys(value)) {
      if (found.full) return;
      if (Object.hasOwn(properties, key)) continue;
      let matched = false;
      for (const [source, member] of Object.entries(patternProperties ?? {})) {
        if (!this.pattern(source).test(key)) continue;
        matched = true;
        this.check(member, value[key], this.placeOf(place, key, `patternProperties/${escapeKey(source)}`), found);
      }
      if (!matched && others) this.check(others, value[key], this.placeOf(place, key, 'additionalProperties'), found);
    }
  }

  /** A union is one problem when every branch that takes the value's type has an array over its limit. */
  private checkUnion(
    schema: JsonSchema,
    keyword: 'anyOf' | 'oneOf',
    branches: JsonSchema[],
    value: unknown,
    place: Place,
    found: Findings,
  ): void {
    let taken = false;
    for (const [index, branch] of branches.entries()) {
      if (!this.mayTake(branch, value)) continue;
      taken = true;
      // One problem is enough to know that the branch fails.
      const inBranch = new Findings(1);
      this.check(branch, value, { ...place, schemaPath: `${place.schemaPath}/${keyword}/${index}` }, inBranch);
      if (inBranch.issues.length === 0) return;
    }
    if (!taken) return;
    found.add({
      instancePath: place.instancePath,
      schemaPath: `${place.schemaPath}/${keyword}`,
      keyword,
      params: {},
      message: `must match a schema in ${keyword}`,
      parentSchema: schema as ValidationIssue['parentSchema'],
    });
  }

  /** Whether a branch could take the value at all, by its type (a union or reference: by its own branches). */
  private mayTake(schema: JsonSchema, value: unknown): boolean {
    if (typeof schema.$ref === 'string') {
      const target = this.resolve(schema.$ref);
      return target === undefined || this.mayTake(target, value);
    }
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches && !branches.some((branch) => this.mayTake(branch, value))) return false;
    return admitsType(schema, value);
  }

  private placeOf(place: Place, key: string, schemaStep: string): Place {
    return { instancePath: `${place.instancePath}/${escapeKey(key)}`, schemaPath: `${place.schemaPath}/${schemaStep}` };
  }
}

const walks = new WeakMap<object, ArrayWalk>();

/**
 * The arrays of `value` over their `maxItems` in `schema` (at most {@link MAX_PROBLEMS}), as Ajv's
 * problems; empty when every array is within its limit.
 */
export function oversizedArrays(schema: object, value: unknown): ValidationIssue[] {
  let walk = walks.get(schema);
  if (!walk) walks.set(schema, (walk = new ArrayWalk(schema as JsonSchema)));
  const found = new Findings(MAX_PROBLEMS);
  walk.check(schema as JsonSchema, value, { instancePath: '', schemaPath: '#' }, found);
  return found.issues;
}
