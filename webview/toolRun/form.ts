/**
 * The Run Tool form: one field per property of the tool's input schema (text, number, checkbox,
 * choice, or JSON for objects and arrays), and the conversion of the fields back into arguments,
 * with a sentence per field that does not hold a valid value. Runs in any DOM.
 */
type Prop = { type?: string | string[]; description?: string; enum?: unknown[]; default?: unknown; title?: string };
type Schema = { properties?: Record<string, Prop>; required?: string[] };

/** A field of the form and how to read it back. */
export interface Field {
  name: string;
  element: HTMLElement;
  read(): { value?: unknown; error?: string };
}

function typeOf(p: Prop): string {
  const t = Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type;
  return p.enum?.length ? 'enum' : (t ?? 'json');
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
    const kind = typeOf(p);
    let input: HTMLElement & { value?: string; checked?: boolean };
    if (kind === 'boolean') {
      input = doc.createElement('vscode-checkbox');
      input.checked = p.default === true;
    } else if (kind === 'enum') {
      input = doc.createElement('vscode-single-select');
      for (const v of p.enum!) {
        const o = doc.createElement('vscode-option');
        o.textContent = String(v);
        o.setAttribute('value', String(v));
        input.append(o);
      }
    } else if (kind === 'json' || kind === 'object' || kind === 'array') {
      input = doc.createElement('vscode-textarea');
      input.setAttribute('rows', '3');
      input.value = p.default !== undefined ? JSON.stringify(p.default) : kind === 'array' ? '[]' : kind === 'object' ? '{}' : '';
    } else {
      input = doc.createElement('vscode-textfield');
      if (kind === 'number' || kind === 'integer') input.setAttribute('type', 'number');
      input.value = p.default !== undefined ? String(p.default) : kind === 'number' || kind === 'integer' ? '0' : '';
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
    const read = (): { value?: unknown; error?: string } => {
      if (kind === 'boolean') return { value: !!input.checked };
      const raw = (input.value ?? '').trim();
      if (!raw) return required.has(name) ? { error: `${name} is required.` } : {};
      if (kind === 'enum') return { value: p.enum!.find((v) => String(v) === raw) ?? raw };
      if (kind === 'number' || kind === 'integer') {
        const n = Number(raw);
        if (!Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n))) return { error: `${name} must be ${kind === 'integer' ? 'a whole number' : 'a number'}.` };
        return { value: n };
      }
      if (kind === 'string') return { value: raw };
      try {
        return { value: JSON.parse(raw) };
      } catch {
        return { error: `${name} must be JSON.` };
      }
    };
    return { name, element: row, read };
  });
}

/** The arguments the fields hold, or the problems that keep them from being sent. */
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
