/**
 * Forms generated from a JSON Schema object: a tool's input schema (Run Tool) or a server's
 * requested schema (form-mode elicitation). One field per property — text (with the `format`'s
 * input type), number, checkbox, choice (`enum`, legacy `enumNames`, titled `oneOf`/`anyOf` of
 * `{const, title}` per SEP-1330), multiple choice (arrays of those), or JSON for objects and other
 * arrays — prefilled with the schema's defaults, and the conversion back into values with a
 * sentence per field that does not hold a valid one. Runs in any DOM.
 */
type Prop = {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  enumNames?: unknown[];
  oneOf?: unknown[];
  anyOf?: unknown[];
  items?: Prop;
  default?: unknown;
  title?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
};
type Schema = { properties?: Record<string, Prop>; required?: string[] };

/** A field of the form and how to read it back. */
export interface Field {
  name: string;
  element: HTMLElement;
  read(): { value?: unknown; error?: string };
}

/** One choice: the value sent and the label shown. */
export interface Choice {
  value: unknown;
  label: string;
}

/** The choices of an enum-like property (see the file comment), or undefined. */
export function choicesOf(p: Prop | undefined): Choice[] | undefined {
  if (!p) return undefined;
  if (Array.isArray(p.enum) && p.enum.length) return p.enum.map((v, i) => ({ value: v, label: String(p.enumNames?.[i] ?? v) }));
  const titled = (p.oneOf ?? p.anyOf) as Array<{ const?: unknown; title?: string }> | undefined;
  if (titled?.length && titled.every((o) => o && typeof o === 'object' && 'const' in o)) return titled.map((o) => ({ value: o.const, label: String(o.title ?? o.const) }));
  return undefined;
}

function kindOf(p: Prop): string {
  const t = Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type;
  if (t === 'array' && choicesOf(p.items)) return 'multi';
  if (choicesOf(p)) return 'enum';
  return t ?? 'json';
}

const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

type Input = HTMLElement & { value?: string | string[]; checked?: boolean };

function option(doc: Document, c: Choice, index: number, selected: boolean): HTMLElement {
  const o = doc.createElement('vscode-option') as HTMLElement & { selected?: boolean };
  o.textContent = c.label;
  o.setAttribute('value', String(index));
  if (selected) o.setAttribute('selected', '');
  return o;
}

/** Builds the fields for `schema` in `doc`; required ones are marked. */
export function buildFields(doc: Document, schema: unknown): Field[] {
  const s = (schema ?? {}) as Schema;
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([name, p]) => {
    const row = doc.createElement('div');
    row.className = 'field';
    const label = doc.createElement('label');
    label.textContent = `${p.title ?? name}${required.has(name) ? ' *' : ''}`;
    label.title = name;
    row.append(label);
    const kind = kindOf(p);
    const choices = kind === 'multi' ? choicesOf(p.items)! : kind === 'enum' ? choicesOf(p)! : [];
    let input: Input;
    if (kind === 'boolean') {
      input = doc.createElement('vscode-checkbox');
      input.checked = p.default === true;
    } else if (kind === 'enum' || kind === 'multi') {
      input = doc.createElement(kind === 'multi' ? 'vscode-multi-select' : 'vscode-single-select');
      const defaults = Array.isArray(p.default) ? p.default : [p.default];
      // An optional single choice starts empty, so "no answer" stays possible.
      if (kind === 'enum' && !required.has(name) && p.default === undefined) input.append(option(doc, { value: undefined, label: '' }, -1, true));
      choices.forEach((c, i) => input.append(option(doc, c, i, defaults.some((d) => d !== undefined && d === c.value))));
    } else if (kind === 'json' || kind === 'object' || kind === 'array') {
      input = doc.createElement('vscode-textarea');
      input.setAttribute('rows', '3');
      input.value = p.default !== undefined ? JSON.stringify(p.default) : kind === 'array' ? '[]' : kind === 'object' ? '{}' : '';
    } else {
      input = doc.createElement('vscode-textfield');
      if (kind === 'number' || kind === 'integer') input.setAttribute('type', 'number');
      else if (p.format && INPUT_TYPES[p.format]) input.setAttribute('type', INPUT_TYPES[p.format]);
      input.value = p.default !== undefined ? String(p.default) : kind === 'number' || kind === 'integer' ? (required.has(name) ? String(p.minimum ?? 0) : '') : '';
    }
    input.className = 'input';
    input.setAttribute('data-name', name);
    row.append(input);
    if (p.description) {
      const help = doc.createElement('div');
      help.className = 'help';
      help.textContent = p.description;
      row.append(help);
    }
    const title = p.title ?? name;
    const read = (): { value?: unknown; error?: string } => {
      if (kind === 'boolean') return { value: !!input.checked };
      if (kind === 'multi') {
        const picked = ((input.value as string[] | undefined) ?? []).map((i) => choices[Number(i)]?.value).filter((v) => v !== undefined);
        if (!picked.length && required.has(name)) return { error: `${title}: choose at least one.` };
        if (p.minItems !== undefined && picked.length < p.minItems) return { error: `${title}: choose at least ${p.minItems}.` };
        if (p.maxItems !== undefined && picked.length > p.maxItems) return { error: `${title}: choose at most ${p.maxItems}.` };
        return picked.length || required.has(name) ? { value: picked } : {};
      }
      const raw = String(input.value ?? '').trim();
      if (!raw || raw === '-1') return required.has(name) ? { error: `${title} is required.` } : {};
      if (kind === 'enum') return { value: choices[Number(raw)]?.value };
      if (kind === 'number' || kind === 'integer') {
        const n = Number(raw);
        if (!Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n))) return { error: `${title} must be ${kind === 'integer' ? 'a whole number' : 'a number'}.` };
        if (p.minimum !== undefined && n < p.minimum) return { error: `${title} must be at least ${p.minimum}.` };
        if (p.maximum !== undefined && n > p.maximum) return { error: `${title} must be at most ${p.maximum}.` };
        return { value: n };
      }
      if (kind === 'string') {
        // The date-time picker gives local "YYYY-MM-DDTHH:MM"; the schema wants RFC 3339 with a zone.
        if (p.format === 'date-time') {
          const d = new Date(raw);
          if (Number.isNaN(d.getTime())) return { error: `${title} must be a date and time.` };
          return { value: d.toISOString() };
        }
        if (p.minLength !== undefined && raw.length < p.minLength) return { error: `${title} needs at least ${p.minLength} characters.` };
        if (p.maxLength !== undefined && raw.length > p.maxLength) return { error: `${title} takes at most ${p.maxLength} characters.` };
        return { value: raw };
      }
      try {
        return { value: JSON.parse(raw) };
      } catch {
        return { error: `${title} must be JSON.` };
      }
    };
    return { name, element: row, read };
  });
}

/** The values the fields hold, or the problems that keep them from being sent. */
export function collect(fields: Field[]): { args: Record<string, unknown> } | { errors: string[] } {
  const args: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const f of fields) {
    const r = f.read();
    if (r.error) errors.push(r.error);
    else if (r.value !== undefined) args[f.name] = r.value;
  }
  return errors.length ? { errors } : { args };
}
