/**
 * `send --schema FILE`: a JSON Schema file read into the input's `responseSchema` (a typed answer),
 * checked here with the agent's own rules, so a missing, malformed or unusable schema is a clear error
 * before anything is sent. The file holds the schema itself, or `{ "name": …, "schema": … }`.
 */
import { readFileSync } from 'node:fs';
import { ResponseSchema } from '../agent/index';
import { UserError } from '../common/user-error';

export function readSchemaFile(file: string): ResponseSchema {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`Cannot read the schema ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UserError(`The schema ${file} is not JSON: ${(err as Error).message}.`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new UserError(`The schema ${file} must be a JSON object (a JSON Schema).`);
  // `schema` is no JSON Schema keyword: a file with it is the input field as it is.
  const parsed = ResponseSchema.safeParse('schema' in json ? json : { schema: json });
  if (!parsed.success) {
    // The schema's own problems need no path; those of a `{name, schema}` file name their field.
    const issues = parsed.error.issues.map((i) => (i.path.length === 1 && i.path[0] === 'schema' ? i.message : `${i.path.join('.') || 'file'}: ${i.message}`));
    throw new UserError(`The schema ${file} cannot be used: ${issues.join('; ')}.`);
  }
  return parsed.data;
}
