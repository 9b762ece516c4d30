import { Client, escapeIdentifier } from 'pg';

/**
 * FerretDB v1.24 on PostgreSQL turns each equality it pushes down into a jsonb containment,
 * `_jsonb -> 'field' @> '"value"'` (`_jsonb #> '{a,b}' @> …` for a dotted field), which the btree
 * expression indexes it creates for `_id` and for declared indexes cannot serve: every such statement
 * was a sequential scan. A GIN index (`jsonb_path_ops`) on the same expression serves it. This event
 * trigger gives every btree index FerretDB creates a GIN twin per field, on the expression its pushdown
 * uses, so that no service needs to know about it. One twin per table and field, whatever the number of
 * indexes naming the field. `fastupdate = off`: with a pending list, every lookup also reads the
 * unsorted entries of recent inserts, and this load inserts all the time.
 */
const INDEX_TWINS = String.raw`
CREATE FUNCTION rm_index_twins() RETURNS event_trigger LANGUAGE plpgsql AS $function$
DECLARE
  created record;
  position int;
  fields text[];
  expression text;
BEGIN
  FOR created IN
    SELECT command.objid AS index_oid, pg_index.indrelid AS table_oid, pg_index.indnkeyatts AS columns
    FROM pg_event_trigger_ddl_commands() AS command
    JOIN pg_index ON pg_index.indexrelid = command.objid
    JOIN pg_class ON pg_class.oid = command.objid
    JOIN pg_am ON pg_am.oid = pg_class.relam
    WHERE command.command_tag = 'CREATE INDEX' AND pg_am.amname = 'btree'
  LOOP
    FOR position IN 1..created.columns LOOP
      -- FerretDB's form: (_jsonb -> 'a'::text), ((_jsonb -> 'a'::text) -> 'b'::text)
      SELECT array_agg(replace(match[1], '''''', '''')) INTO fields
      FROM regexp_matches(pg_get_indexdef(created.index_oid, position, false), '''((?:[^'']|'''')*)''::text', 'g') AS match;
      CONTINUE WHEN fields IS NULL OR pg_get_indexdef(created.index_oid, position, false) !~ '^\(*_jsonb ->';
      expression := CASE WHEN cardinality(fields) = 1
        THEN format('(_jsonb -> %L)', fields[1])
        ELSE format('(_jsonb #> %L::text[])', fields) END;
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin (%s jsonb_path_ops) WITH (fastupdate = off)',
        'gin_' || md5(created.table_oid::regclass::text || expression), created.table_oid::regclass, expression);
    END LOOP;
  END LOOP;
END
$function$;
CREATE EVENT TRIGGER rm_index_twins ON ddl_command_end WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION rm_index_twins();
`;

/**
 * Prepares the throw-away database at `url` before FerretDB first connects to it: the index twins above,
 * and custom plans for every statement. FerretDB passes the field name of `_jsonb -> $1` as a parameter,
 * so a generic plan (which PostgreSQL may switch a prepared statement to after five runs) cannot match
 * the twin's expression and scans.
 */
export async function prepareFerretdbDatabase(url: string, database: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(INDEX_TWINS);
    await client.query(`ALTER DATABASE ${escapeIdentifier(database)} SET plan_cache_mode = force_custom_plan`);
  } finally {
    await client.end();
  }
}
