/*
 * The command table (see commands.h): names, groups, argument counts,
 * usage lines and the help text that `help` prints and the man page
 * repeats. Handlers live in the cmd_*.c files.
 */
#include "commands.h"

#include <string.h>

const char *const sh_command_groups[] = {
    "general", "ddl", "namespace", "dml", "tools", "snapshots", "transfer", NULL,
};

#define READ_OPTS_NOTE \
    "  Timestamps are milliseconds since the epoch. Bytes outside printable ASCII, and the\n" \
    "  backslash, print as \\xNN."

static const sh_command_def commands[] = {
    /* general */
    { "help", "general", cmd_help, 0, 1, "help ['command' | 'group']",
      "Lists the command groups and commands, or shows the help of one command or group:\n"
      "  cellsh> help\n  cellsh> help 'get'\n  cellsh> help 'dml'" },
    { "exit", "general", cmd_exit, 0, 0, "exit",
      "Leaves the shell (also: quit, or end of input). In a script, stops reading it." },
    { "quit", "general", cmd_exit, 0, 0, "quit", "Same as exit." },
    { "status", "general", cmd_status, 0, 2, "status ['summary' | 'simple' | 'detailed']",
      "Shows the store as HBase shows a cluster: one server (this process) holding one\n"
      "region per table. 'summary' (the default) is one line; 'simple' adds the figures of\n"
      "the store (sorted files, bytes on disk, in memory and in the block cache, flushes,\n"
      "compactions, the last sequence number); 'detailed' adds each table as a region with\n"
      "its families and state. 'replication' is an error: a local store has none.\n"
      "  cellsh> status\n  cellsh> status 'simple'\n  cellsh> status 'detailed'" },
    { "table_help", "general", cmd_table_help, 0, 0, "table_help",
      "Explains HBase's table references (t = get_table 't'; t.scan) and the commands\n"
      "that stand for them in cellsh, which has none." },
    { "processlist", "general", cmd_processlist, 0, -1,
      "processlist ['all' | 'general' | 'handler' | 'rpc' | 'operation'] [, 'server', ...]",
      "Shows the tasks of the region servers, as HBase 2 does: \"0 tasks as of: DATE\" and\n"
      "\"No general tasks currently running.\" (or the filter named). The store runs no\n"
      "background tasks: flushes and compactions run inside the command that asks for them.\n"
      "  cellsh> processlist\n  cellsh> processlist 'all'" },
    { "version", "general", cmd_version, 0, 0, "version",
      "Prints the version, as HBase's \"VERSION, rREVISION, DATE\" line: \"0.1.0, cellsh,\n"
      "libkvcore 0.1.0\"." },
    { "whoami", "general", cmd_whoami, 0, 0, "whoami",
      "Prints the user running the shell as HBase does with simple authentication,\n"
      "\"alice (auth:SIMPLE)\", and the user's groups, the primary one first." },

    /* ddl */
    { "create", "ddl", cmd_create, 2, -1,
      "create 'ns:table', 'family' | {NAME => 'family', ATTRIBUTE => value}, ...",
      "Creates a table with one or more column families. A family is a name or a hash of\n"
      "attributes: NAME, VERSIONS (1), MIN_VERSIONS (0), TTL (FOREVER, seconds),\n"
      "KEEP_DELETED_CELLS (FALSE/TRUE/TTL), COMPRESSION (NONE/LZ4/SNAPPY), BLOOMFILTER\n"
      "(NONE/ROW/ROWCOL), BLOCKSIZE (65536), DATA_BLOCK_ENCODING (NONE/PREFIX/DIFF),\n"
      "IN_MEMORY, BLOCKCACHE, NEW_VERSION_BEHAVIOR. A hash without NAME holds table\n"
      "attributes (MAX_FILESIZE, READONLY, DURABILITY, ..., METADATA; see alter); region\n"
      "options (SPLITS, NUMREGIONS, ...) are accepted and ignored. Prints 'Created table\n"
      "NAME'. Examples:\n"
      "  cellsh> create 't1', 'f1', 'f2'\n"
      "  cellsh> create 't1', 'f1', {MAX_FILESIZE => '134217728', OWNER => 'bob'}\n"
      "  cellsh> create 'ns1:t1', {NAME => 'f1', VERSIONS => 5, TTL => 86400}\n"
      "  cellsh> create 't1', {NAME => 'f1', COMPRESSION => 'LZ4'}, {NAME => 'f2'}" },
    { "alter", "ddl", cmd_alter, 2, -1,
      "alter 'table', {NAME => 'family', ATTRIBUTE => value} | 'family' | 'delete' => 'family' "
      "| {NAME => 'family', METHOD => 'delete'} | METHOD => 'table_att', KEY => value "
      "| METHOD => 'table_att_unset', NAME => 'KEY', ...",
      "Adds a family, changes a family's attributes (others keep their values), or deletes a\n"
      "family and all its cells. Every change is checked before the first is made; the last\n"
      "family cannot be deleted. The table may be enabled. Table attributes: MAX_FILESIZE,\n"
      "MEMSTORE_FLUSHSIZE, READONLY (true refuses every write), DURABILITY (USE_DEFAULT,\n"
      "SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL), COMPACTION_ENABLED, NORMALIZATION_ENABLED,\n"
      "SPLIT_ENABLED, MERGE_ENABLED, REGION_REPLICATION, PRIORITY, SPLIT_POLICY, OWNER,\n"
      "FLUSH_POLICY, METADATA => {'key' => 'value'}; shown by describe. Prints HBase 2's\n"
      "'Updating all regions with the new schema...' lines. Examples:\n"
      "  cellsh> alter 't1', {NAME => 'f1', VERSIONS => 5}\n"
      "  cellsh> alter 't1', 'f3'\n"
      "  cellsh> alter 't1', NAME => 'f1', METHOD => 'delete'\n"
      "  cellsh> alter 't1', 'delete' => 'f1'\n"
      "  cellsh> alter 't1', MAX_FILESIZE => '134217728'\n"
      "  cellsh> alter 't1', METHOD => 'table_att', READONLY => 'true', DURABILITY => 'ASYNC_WAL'\n"
      "  cellsh> alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'" },
    { "describe", "ddl", cmd_describe, 1, 1, "describe 'table'",
      "Shows whether the table is enabled, its table attributes (TABLE_ATTRIBUTES => {...})\n"
      "and its families with all their attributes:\n"
      "  cellsh> describe 't1'" },
    { "desc", "ddl", cmd_describe, 1, 1, "desc 'table'", "Same as describe." },
    { "list", "ddl", cmd_list, 0, 1, "list ['regex']",
      "Lists the tables, all or those whose whole name matches a regular expression (Java's\n"
      "syntax as HBase takes it: POSIX extended syntax with \\d, \\w, \\s and a leading (?i)).\n"
      "Tables of namespace default are shown without the prefix:\n"
      "  cellsh> list\n  cellsh> list 'abc.*'\n  cellsh> list 'ns:.*'\n  cellsh> list 't\\d+'" },
    { "alter_async", "ddl", cmd_alter_async, 2, -1,
      "alter_async 'table', {NAME => 'family', ATTRIBUTE => value} | ... (as alter)",
      "Same as alter, without waiting for the regions (and so without alter's 'Updating\n"
      "all regions' lines): a local table is one region, changed when the command returns.\n"
      "  cellsh> alter_async 't1', NAME => 'f1', VERSIONS => 5" },
    { "alter_status", "ddl", cmd_alter_status, 1, 1, "alter_status 'table'",
      "Shows how many regions have taken the last schema change: always '1/1 regions\n"
      "updated.' and 'Done.', since a local table is one region changed by alter itself.\n"
      "  cellsh> alter_status 't1'" },
    { "clone_table_schema", "ddl", cmd_clone_table_schema, 2, 3,
      "clone_table_schema 'table', 'new_table' [, preserve_splits]",
      "Creates a new table with the families (and their attributes) and the table\n"
      "attributes of an existing one, without its cells. The new table must not exist\n"
      "(\"Table already exists\"). preserve_splits (true) is accepted and has no effect: a\n"
      "local table has no split keys.\n"
      "  cellsh> clone_table_schema 't1', 't2'\n  cellsh> clone_table_schema 't1', 'ns1:t2', false" },
    { "disable_all", "ddl", cmd_disable_all, 1, 1, "disable_all 'regex'",
      "Disables every table whose whole name matches the regex (as for list): lists them,\n"
      "asks \"Disable the above N tables (y/n)?\" and reads the answer from standard input\n"
      "(a line starting with y confirms). At the end of input nothing is done and the\n"
      "command fails.\n"
      "  cellsh> disable_all 't.*'\n  cellsh> disable_all 'ns:.*'" },
    { "enable_all", "ddl", cmd_enable_all, 1, 1, "enable_all 'regex'",
      "Enables every table whose whole name matches the regex, after asking as\n"
      "disable_all does:\n  cellsh> enable_all 't.*'" },
    { "drop_all", "ddl", cmd_drop_all, 1, 1, "drop_all 'regex'",
      "Drops every table whose whole name matches the regex, after asking as disable_all\n"
      "does. Enabled tables are not dropped and are named in \"N tables not dropped due to\n"
      "an exception: t1,t2\".\n  cellsh> disable_all 'tmp.*'\n  cellsh> drop_all 'tmp.*'" },
    { "get_table", "ddl", cmd_get_table, 1, 1, "get_table 'table'",
      "An error naming the alternative: HBase returns a table reference (t = get_table 't';\n"
      "t.scan), and cellsh, which runs no Ruby, has none. Give the table name to each\n"
      "command instead (see table_help)." },
    { "list_regions", "ddl", cmd_list_regions, 1, 3,
      "list_regions 'table' [, 'server' | {SERVER_NAME => 'server', LOCALITY_THRESHOLD => x} "
      "[, ['SERVER_NAME', 'REGION_NAME', 'START_KEY', 'END_KEY', 'SIZE', 'REQ', 'LOCALITY']]]",
      "Lists the regions of an enabled table in HBase's table of SERVER_NAME, REGION_NAME,\n"
      "START_KEY, END_KEY, SIZE (MB), REQ and LOCALITY: one region, 'table,,1', with empty\n"
      "start and end keys, on this host (port 0, the start code is when the store was\n"
      "opened); SIZE and REQ are 0 (not counted per table), LOCALITY is 1.0. A server\n"
      "prefix that does not match shows 0 rows; the array picks columns.\n"
      "  cellsh> list_regions 't1'\n  cellsh> list_regions 't1', '', ['SERVER_NAME', 'start_key']" },
    { "locate_region", "ddl", cmd_locate_region, 2, 2, "locate_region 'table', 'row'",
      "Shows the region that holds a row: the host (host:0) and the one region of the table,\n"
      "{ENCODED => N, NAME => 'table,,1', STARTKEY => '', ENDKEY => ''}, whatever the row.\n"
      "  cellsh> locate_region 't1', 'key0'" },
    { "show_filters", "ddl", cmd_show_filters, 0, 0, "show_filters",
      "Lists the filters the FILTER option of get, scan and count takes (HBase's filter\n"
      "language; see FILTERS in cellsh(1)), one a line:\n"
      "  cellsh> show_filters" },
    { "exists", "ddl", cmd_exists, 1, 1, "exists 'table'",
      "Prints 'Table t does exist' or 'Table t does not exist'." },
    { "enable", "ddl", cmd_enable, 1, 1, "enable 'table'",
      "Enables a table (no-op when it is enabled)." },
    { "disable", "ddl", cmd_disable, 1, 1, "disable 'table'",
      "Disables a table: reads and writes are refused until it is enabled. A table must be\n"
      "disabled before drop." },
    { "is_enabled", "ddl", cmd_is_enabled, 1, 1, "is_enabled 'table'", "Prints true or false." },
    { "is_disabled", "ddl", cmd_is_disabled, 1, 1, "is_disabled 'table'",
      "Prints true or false." },
    { "drop", "ddl", cmd_drop, 1, 1, "drop 'table'",
      "Drops a disabled table and all its cells:\n  cellsh> disable 't1'\n  cellsh> drop 't1'" },

    /* namespace */
    { "create_namespace", "namespace", cmd_create_namespace, 1, 2,
      "create_namespace 'ns' [, {'PROPERTY' => 'value'}]",
      "Creates a namespace, optionally with properties:\n"
      "  cellsh> create_namespace 'ns1'\n"
      "  cellsh> create_namespace 'ns1', {'owner' => 'alice'}" },
    { "drop_namespace", "namespace", cmd_drop_namespace, 1, 1, "drop_namespace 'ns'",
      "Drops an empty namespace (default and hbase cannot be dropped)." },
    { "alter_namespace", "namespace", cmd_alter_namespace, 2, 2,
      "alter_namespace 'ns', {METHOD => 'set', 'PROPERTY' => 'value'} | "
      "{METHOD => 'unset', NAME => 'PROPERTY'}",
      "Sets or removes namespace properties:\n"
      "  cellsh> alter_namespace 'ns1', {METHOD => 'set', 'owner' => 'bob'}\n"
      "  cellsh> alter_namespace 'ns1', {METHOD => 'unset', NAME => 'owner'}" },
    { "describe_namespace", "namespace", cmd_describe_namespace, 1, 1,
      "describe_namespace 'ns'", "Shows a namespace and its properties." },
    { "list_namespace", "namespace", cmd_list_namespace, 0, 1, "list_namespace ['regex']",
      "Lists the namespaces, all or those whose whole name matches a regular expression (as\n"
      "for list):\n  cellsh> list_namespace\n  cellsh> list_namespace 'ns.*'" },
    { "list_namespace_tables", "namespace", cmd_list_namespace_tables, 1, 1,
      "list_namespace_tables 'ns'", "Lists the tables of a namespace, without the prefix." },

    /* dml */
    { "put", "dml", cmd_put, 4, 6,
      "put 'table', 'row', 'family:qualifier', 'value' [, ts] [, {ATTRIBUTES => {...}, "
      "VISIBILITY => '...'}]",
      "Puts one cell, at the store's clock or at an explicit timestamp (ms; negative ones\n"
      "too). 'family' alone writes the empty qualifier, as HBase's Put does. ATTRIBUTES and\n"
      "VISIBILITY are accepted and have no effect (no attribute readers or visibility\n"
      "labels here).\n"
      "  cellsh> put 't1', 'r1', 'f1:c1', 'value'\n"
      "  cellsh> put 't1', 'r1', 'f1:c1', \"\\x00\\x01\", 1421762485768\n"
      "  cellsh> put 't1', 'r1', 'f1:c1', 'value', {ATTRIBUTES => {'mykey' => 'myvalue'}}" },
    { "get", "dml", cmd_get, 2, -1,
      "get 'table', 'row' [, 'f:q' | 'f' | ['f:q', 'f'] ... | {COLUMN => ..., VERSIONS => n, "
      "TIMESTAMP => ts, TIMERANGE => [min, max], FILTER => \"...\", MAXLENGTH => n, "
      "FORMATTER => 'toString', FORMATTER_CLASS => '...'}]",
      "Reads one row: one line per cell under a COLUMN / CELL header, then '1 row(s)' (or\n"
      "'0 row(s)' when it has no cells), as HBase counts. COLUMN (or COLUMNS) takes\n"
      "'family', 'family:qualifier' or an array; VERSIONS the versions per column (1);\n"
      "TIMESTAMP an exact version; TIMERANGE [min, max) in ms; FILTER a filter string (see\n"
      "scan); MAXLENGTH cuts each cell's text after n characters. As in HBase, the hash\n"
      "must name COLUMN(S), TIMESTAMP or TIMERANGE unless it holds only FILTER, MAXLENGTH\n"
      "or FORMATTER options:\n"
      "get 't1', 'r1', {VERSIONS => 3} fails with \"Failed parse of {\"VERSIONS\"=>3}, Hash\".\n"
      "A column 'f:q:CONVERTER' prints that column's values with a method of\n"
      "org.apache.hadoop.hbase.util.Bytes (toLong for counters, toInt, toShort, toDouble,\n"
      "toFloat, toBoolean, toString, toHex, toStringBinary), also written\n"
      "'f:q:c(org.apache.hadoop.hbase.util.Bytes).toLong'; FORMATTER does so for every row,\n"
      "column and value. Examples:\n"
      "  cellsh> get 't1', 'r1'\n"
      "  cellsh> get 't1', 'r1', {COLUMN => 'f1:c1', VERSIONS => 3}\n"
      "  cellsh> get 't1', 'r1', {TIMERANGE => [1303668804000, 1303668904000]}\n"
      "  cellsh> get 't1', 'r1', 'f1:c1', 'f1:c2'\n"
      "  cellsh> get 't1', 'r1', {COLUMN => ['f1:hits:toLong']}\n"
      "  cellsh> get 't1', 'r1', {FORMATTER => 'toString'}\n"
      READ_OPTS_NOTE },
    { "scan", "dml", cmd_scan, 1, 2,
      "scan 'table' [, {STARTROW => 'r', STOPROW => 'r', ROWPREFIXFILTER => 'p', COLUMNS => "
      "[...], LIMIT => n, REVERSED => true, RAW => true, VERSIONS => n, TIMESTAMP => ts, "
      "TIMERANGE => [a, b], FILTER => \"...\", MAXLENGTH => n, FORMATTER => '...', "
      "CACHE_BLOCKS => false, ALL_METRICS => true, METRICS => [...]}]",
      "Scans a table: one line per cell under a ROW / COLUMN+CELL header, then 'N row(s)'.\n"
      "STARTROW is inclusive, STOPROW (or ENDROW) exclusive; ROWPREFIXFILTER replaces both,\n"
      "as HBase's setRowPrefixFilter does; REVERSED scans downwards (STARTROW is then the\n"
      "largest row); RAW shows delete markers (type=Delete, DeleteColumn, DeleteFamily,\n"
      "DeleteFamilyVersion) and the cells they mask; VERSIONS may stand alone. Columns and\n"
      "FORMATTER take converters as in get. ALL_METRICS => true, or METRICS => ['NAME', ...],\n"
      "prints HBase's scan metrics after the rows: BYTES_IN_RESULTS, MILLIS_BETWEEN_NEXTS,\n"
      "REGIONS_SCANNED (1) and the RPC counts (0 in a local store). FILTER takes HBase's\n"
      "filter language: PrefixFilter, ColumnPrefixFilter, QualifierFilter, ValueFilter,\n"
      "SingleColumnValueFilter, KeyOnlyFilter, FirstKeyOnlyFilter, TimestampsFilter,\n"
      "PageFilter, ... combined with AND, OR, SKIP, WHILE. Ctrl-C stops a long scan.\n"
      "Examples:\n"
      "  cellsh> scan 't1'\n"
      "  cellsh> scan 't1', {COLUMNS => ['f1:c1', 'f2'], LIMIT => 10, STARTROW => 'xyz'}\n"
      "  cellsh> scan 't1', {RAW => true, VERSIONS => 10}\n"
      "  cellsh> scan 't1', {FILTER => \"PrefixFilter('row') AND ValueFilter(=, 'binary:v')\"}\n"
      "  cellsh> scan 't1', {COLUMNS => ['f1:hits:toLong'], ALL_METRICS => true}\n"
      READ_OPTS_NOTE },
    { "count", "dml", cmd_count, 1, 2,
      "count 'table' [, {INTERVAL => n, CACHE => n, FILTER => \"...\", COLUMNS => [...], "
      "STARTROW => ..., STOPROW => ..., ROWPREFIXFILTER => ...}] | count 'table', n",
      "Counts the rows and prints 'N row(s)', with 'Current count: N, row: R' every INTERVAL\n"
      "rows (1000 by default; count 't1', n is the old way to give it). CACHE is accepted\n"
      "(HBase's scanner caching; rows here are read in place). Ctrl-C stops it.\n"
      "  cellsh> count 't1'\n  cellsh> count 't1', INTERVAL => 100000, CACHE => 1000\n"
      "  cellsh> count 't1', {FILTER => \"PrefixFilter('user')\"}" },
    { "delete", "dml", cmd_delete, 3, 5,
      "delete 'table', 'row' | {ROWPREFIXFILTER => 'p'}, 'family:qualifier' | 'family' | '' "
      "[, ts] [, {VISIBILITY => '...'}]",
      "Deletes one version of a column, as the HBase 2 shell does: the one at exactly ts, or\n"
      "the newest one without ts (a Delete marker). 'family' with a ts deletes every column\n"
      "of the family at exactly ts (DeleteFamilyVersion); '' deletes the whole row up to ts.\n"
      "To delete all versions up to a timestamp use deleteall. Older versions beyond\n"
      "VERSIONS may reappear after a delete, until a major compaction, exactly as in HBase.\n"
      "  cellsh> delete 't1', 'r1', 'f1:c1'\n  cellsh> delete 't1', 'r1', 'f1:c1', 1421762485768" },
    { "deleteall", "dml", cmd_deleteall, 2, 5,
      "deleteall 'table', 'row' | {ROWPREFIXFILTER => 'p', CACHE => n} [, 'family:qualifier' "
      "| 'family' | ''] [, ts] [, {VISIBILITY => '...'}]",
      "Deletes every version up to ts (default: now) of a whole row (no column, or '': a\n"
      "DeleteFamily marker in every family), of one column (DeleteColumn) or of one family\n"
      "(DeleteFamily); with ROWPREFIXFILTER, of every row with that prefix, CACHE rows (100)\n"
      "per batch, each row atomically. The markers mask older puts, even ones written\n"
      "later, until a major compaction (or a minor one of every file) removes them.\n"
      "VISIBILITY is accepted and has no effect.\n"
      "  cellsh> deleteall 't1', 'r1'\n  cellsh> deleteall 't1', 'r1', '', 1421762485768\n"
      "  cellsh> deleteall 't1', 'r1', 'f1:c1', 1421762485768\n"
      "  cellsh> deleteall 't1', {ROWPREFIXFILTER => 'tmp_', CACHE => 500}, 'f1'" },
    { "incr", "dml", cmd_incr, 3, 5,
      "incr 'table', 'row', 'family:qualifier' [, n] [, {ATTRIBUTES => {...}, VISIBILITY => "
      "'...'}]",
      "Adds n (default 1) to a counter, an 8-byte big-endian value, and prints\n"
      "'COUNTER VALUE = n'. Incrementing a value that is not 8 bytes long is an error.\n"
      "  cellsh> incr 't1', 'r1', 'f1:hits'\n  cellsh> incr 't1', 'r1', 'f1:hits', -10" },
    { "get_counter", "dml", cmd_get_counter, 3, 3, "get_counter 'table', 'row', 'family:qualifier'",
      "Prints 'COUNTER VALUE = n', or 'No counter found at specified coordinates'. A value\n"
      "that is not 8 bytes long is an error." },
    { "append", "dml", cmd_append, 4, 5,
      "append 'table', 'row', 'family:qualifier', 'value' [, {ATTRIBUTES => {...}, "
      "VISIBILITY => '...'}]",
      "Appends bytes to the newest value of a cell (absent: empty) and prints\n"
      "'CURRENT VALUE = ...'." },
    { "get_splits", "dml", cmd_get_splits, 1, 1, "get_splits 'table'",
      "Prints the number of regions and the split keys between them: \"Total number of\n"
      "splits = 1\" and an empty line, since a local table is one region.\n"
      "  cellsh> get_splits 't1'" },
    { "truncate", "dml", cmd_truncate, 1, 1, "truncate 'table'",
      "Removes every cell of a table, keeping its families and attributes; prints HBase 2's\n"
      "steps (Disabling table... only when it was enabled). The table ends enabled." },
    { "truncate_preserve", "dml", cmd_truncate_preserve, 1, 1, "truncate_preserve 'table'",
      "Same as truncate: a local table has one region, so there are no region boundaries\n"
      "to preserve." },

    /* tools */
    { "flush", "tools", cmd_flush, 0, 2, "flush ['table' [, 'family']]",
      "Writes the in-memory buffers of a table (no argument: every table) to sorted files." },
    { "compact", "tools", cmd_compact, 0, 2, "compact ['table' [, 'family']]",
      "Runs a minor compaction of a table (no argument: every table) and waits for it. A\n"
      "family argument is checked, but the whole table is compacted. Where it takes every\n"
      "file of a family it drops delete markers and what they mask, as HBase's does." },
    { "major_compact", "tools", cmd_major_compact, 0, 2, "major_compact ['table' [, 'family']]",
      "Rewrites each family of a table into one file, dropping delete markers and the cells\n"
      "they mask, expired cells and versions beyond VERSIONS. This can change what reads\n"
      "return, exactly as in HBase." },
    { "balancer", "tools", cmd_balancer, 0, 1, "balancer ['force']",
      "Runs the balancer and prints whether it ran, as HBase does: \"true\". With one server\n"
      "there is nothing to move." },
    { "compaction_state", "tools", cmd_compaction_state, 1, 1, "compaction_state 'table'",
      "Prints the compaction state of a table, NONE: compact and major_compact return when\n"
      "their compaction is done, so none is ever running when another command runs.\n"
      "  cellsh> compaction_state 't1'" },
    { "split", "tools", cmd_split, 1, 2, "split 'table' | 'region' [, 'split_key']",
      "An error: a local table is one region, held by this process, and is never split." },

    /* snapshots */
    { "snapshot", "snapshots", cmd_snapshot, 2, 3,
      "snapshot 'table', 'snapshot' [, {SKIP_FLUSH => true}]",
      "An error: the store has no point-in-time copy of a table (see SNAPSHOTS in\n"
      "cellsh(1)). export writes a table's cells to a file, import loads them back." },
    { "list_snapshots", "snapshots", cmd_list_snapshots, 0, 1, "list_snapshots ['regex']",
      "Lists the snapshots under a SNAPSHOT / TABLE + CREATION TIME header: none, since\n"
      "cellsh takes none; prints '0 row(s)'." },
    { "list_table_snapshots", "snapshots", cmd_list_snapshots, 1, 2,
      "list_table_snapshots 'table_regex' [, 'snapshot_regex']",
      "As list_snapshots, for the snapshots of the tables matching a regex: none." },
    { "restore_snapshot", "snapshots", cmd_named_snapshot, 1, 2,
      "restore_snapshot 'snapshot' [, {RESTORE_ACL => true}]",
      "Fails as HBase does for a snapshot that does not exist: cellsh takes none." },
    { "clone_snapshot", "snapshots", cmd_named_snapshot, 2, 3,
      "clone_snapshot 'snapshot', 'table' [, {RESTORE_ACL => true}]",
      "Fails as HBase does for a snapshot that does not exist: cellsh takes none." },
    { "delete_snapshot", "snapshots", cmd_named_snapshot, 1, 1, "delete_snapshot 'snapshot'",
      "Fails as HBase does for a snapshot that does not exist: cellsh takes none." },

    /* transfer */
    { "import", "transfer", cmd_import, 2, 3,
      "import 'table', 'FILE' [, {FORMAT => 'tsv'|'json', COLUMNS => 'HBASE_ROW_KEY,f:a,f:b', "
      "SEPARATOR => \"\\t\", HEADER => true, TIMESTAMP => ts, ESCAPED => true, "
      "SKIP_BAD_LINES => false}]",
      "Loads cells into an existing table from a file. FORMAT defaults to json for names\n"
      "ending in .json, else tsv.\n"
      "TSV (like HBase's ImportTsv): one row per line, fields separated by SEPARATOR (a tab);\n"
      "COLUMNS maps fields to HBASE_ROW_KEY (required), HBASE_TS_KEY (the timestamp, ms) and\n"
      "'family:qualifier' columns. Without COLUMNS the first line is a header naming them\n"
      "(as export writes it); with COLUMNS, HEADER => true skips a header line. Empty fields\n"
      "make no cell. With ESCAPED (the default) \\\\, \\t, \\n, \\r and \\xNN in a field stand for\n"
      "the byte. Cells get TIMESTAMP, else HBASE_TS_KEY, else the store's clock. A bad line\n"
      "stops the import with its line number, unless SKIP_BAD_LINES => true.\n"
      "JSON: one object, row -> family -> qualifier -> timestamp -> value, as export writes it;\n"
      "keys and values are strings where \\xNN (written \"\\\\xNN\" in JSON) stands for a byte.\n"
      "  cellsh> import 't1', 'data.tsv', {COLUMNS => 'HBASE_ROW_KEY,f1:a,f1:b'}\n"
      "  cellsh> import 't1', 'dump.json'" },
    { "export", "transfer", cmd_export, 2, 3,
      "export 'table', 'FILE' [, {FORMAT => 'tsv'|'json', COLUMNS => ..., SEPARATOR => \"\\t\", "
      "HEADER => true, VERSIONS => n, TIMERANGE => [a, b], FILTER => \"...\", STARTROW => ..., "
      "STOPROW => ..., ROWPREFIXFILTER => ..., LIMIT => n}]",
      "Writes a table's cells to FILE ('-' for standard output) in the formats import reads.\n"
      "TSV: a header line (unless HEADER => false) and one line per row with the newest value\n"
      "of each column; COLUMNS ('HBASE_ROW_KEY,f:a,f:b' or an array) picks the columns,\n"
      "default every column present. JSON: every version (VERSIONS limits them), so that\n"
      "export, import into an empty table and export again give the same file. The file is\n"
      "written beside FILE and renamed into place when complete.\n"
      "  cellsh> export 't1', 't1.json'\n"
      "  cellsh> export 't1', 't1.tsv', {COLUMNS => 'HBASE_ROW_KEY,f1:a', HEADER => false}" },
};

const sh_command_def *sh_command_find(const char *name) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

const sh_command_def *sh_command_table(size_t *count) {
    *count = sizeof commands / sizeof commands[0];
    return commands;
}
