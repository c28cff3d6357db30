// What the engines' validators refuse (seed 2 "Execution safety" plus what the platform adds).

/** Statements the seed blocks in SQL engines; named in errors. */
export const BLOCKED_STATEMENTS = ['CREATE', 'ALTER', 'DROP', 'TRUNCATE', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'GRANT', 'REVOKE'];

/**
 * Functions refused in SQL engines: the seed's `pg_sleep`, `sleep`, `load_file`, and functions
 * that run SQL given as text (which would escape the parse-tree check), change settings,
 * reach other servers or files, or hold locks.
 */
export const BLOCKED_SQL_FUNCTIONS = new Set([
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'sleep',
  'load_file',
  'benchmark',
  'get_lock',
  'set_config',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'cursor_to_xmlschema',
  'table_to_xml',
  'table_to_xmlschema',
  'table_to_xml_and_xmlschema',
  'schema_to_xml',
  'schema_to_xmlschema',
  'schema_to_xml_and_xmlschema',
  'database_to_xml',
  'database_to_xmlschema',
  'database_to_xml_and_xmlschema',
  'ts_stat',
  'dblink',
  'lo_import',
  'lo_export',
  'lo_get',
  'lo_open',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_advisory_lock',
  'pg_advisory_xact_lock',
]);

/** Functions refused in the column-oriented engine (seed list plus table functions reaching elsewhere). */
export const BLOCKED_CLICKHOUSE_FUNCTIONS = new Set([
  'file',
  's3',
  'url',
  'remote',
  'mysql',
  'postgresql',
  'sleep',
  'input',
  'remotesecure',
  'cluster',
  'clusterallreplicas',
  's3cluster',
  'hdfs',
  'jdbc',
  'odbc',
  'executable',
  'sleepeachrow',
  'urlcluster',
  'azureblobstorage',
  'mongodb',
  'redis',
  'sqlite',
]);

/** Keys refused anywhere in a search DSL document. */
export const BLOCKED_SEARCH_KEYS = new Set(['script', 'runtime_mappings', 'script_fields', 'scripted_metric']);
