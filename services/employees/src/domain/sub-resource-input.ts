/** A sub-resource's request body that passed its schema: its fields, plus the read-only ones a GET body brings back. */
export type SubResourceInput<Fields> = Fields & { id?: unknown; employee_id?: unknown; version?: unknown };

/** The fields alone: read-only fields in a request are accepted and ignored (field reference). */
export function withoutReadOnly<Fields>(input: SubResourceInput<Fields>): Fields {
  const { id: _id, employee_id: _employeeId, version: _version, ...fields } = input;
  return fields as Fields;
}
