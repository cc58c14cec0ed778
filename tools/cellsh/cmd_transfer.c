/*
 * The import and export commands: read their options, check the table,
 * and run the TSV or JSON code of transfer_tsv.c / transfer_json.c. Export
 * writes a temporary file beside the target and renames it into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "transfer.h"

enum { FMT_TSV, FMT_JSON };

static int read_format(cellsh *sh, const sh_value *opts, const char *path, int *fmt) {
    const sh_value *v = sh_hash_get(opts, "FORMAT");
    if (v) {
        if (sh_value_is(v, "tsv")) *fmt = FMT_TSV;
        else if (sh_value_is(v, "json")) *fmt = FMT_JSON;
        else return sh_error(sh, "FORMAT must be 'tsv' or 'json'");
        return 0;
    }
    size_t n = strlen(path);
    *fmt = n >= 5 && strcasecmp(path + n - 5, ".json") == 0 ? FMT_JSON : FMT_TSV;
    return 0;
}

/* Reads the TSV options shared by import and export into t. */
static int read_tsv_options(cellsh *sh, const sh_value *opts, int fmt, sh_transfer *t) {
    static const char *const tsv_only[] = { "SEPARATOR", "HEADER", "ESCAPED", "SKIP_BAD_LINES",
                                            NULL };
    if (fmt == FMT_JSON) {
        for (const char *const *k = tsv_only; *k; k++)
            if (sh_hash_get(opts, *k)) return sh_error(sh, "%s applies to TSV files only", *k);
        return 0;
    }
    const sh_value *v;
    if ((v = sh_hash_get(opts, "SEPARATOR"))) {
        if (v->kind != SH_STR || v->len != 1)
            return sh_error(sh, "SEPARATOR must be a string of one byte, e.g. \"\\t\" or ','");
        char c = v->str[0];
        if (c == '\n' || c == '\r' || c == '\\' || c == ':')
            return sh_error(sh, "SEPARATOR cannot be a newline, a backslash or ':'");
        t->separator = c;
    }
    if ((v = sh_hash_get(opts, "HEADER")) && sh_arg_bool(sh, v, "HEADER", &t->header) < 0)
        return -1;
    if ((v = sh_hash_get(opts, "ESCAPED")) && sh_arg_bool(sh, v, "ESCAPED", &t->escaped) < 0)
        return -1;
    if ((v = sh_hash_get(opts, "SKIP_BAD_LINES")) &&
        sh_arg_bool(sh, v, "SKIP_BAD_LINES", &t->skip_bad_lines) < 0)
        return -1;
    return 0;
}

/* COLUMNS as one comma-separated string or an array of names, joined. */
static int columns_text(cellsh *sh, const sh_value *v, const char **text, size_t *len) {
    if (v->kind == SH_STR) {
        *text = v->str;
        *len = v->len;
        return 0;
    }
    if (v->kind != SH_ARRAY || v->n == 0)
        return sh_error(sh, "COLUMNS must be 'HBASE_ROW_KEY,family:qualifier,...' or an array");
    size_t need = 1;
    for (size_t i = 0; i < v->n; i++) {
        if (v->items[i].kind != SH_STR) return sh_error(sh, "COLUMNS entries must be strings");
        need += v->items[i].len + 1;
    }
    char *s = sh_arena_alloc(sh->arena, need);
    if (!s) return sh_error(sh, "out of memory");
    size_t at = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (i) s[at++] = ',';
        memcpy(s + at, v->items[i].str, v->items[i].len);
        at += v->items[i].len;
    }
    *text = s;
    *len = at;
    return 0;
}

/* Checks that the table can be written/read and knows every mapped family. */
static int check_table(sh_transfer *t) {
    cellsh *sh = t->sh;
    kv_table_desc *d = NULL;
    kv_status st = kv_table_describe(&d, sh->store, t->table);
    if (st != KV_OK) return sh_kv_error(sh, st, t->table);
    int rc = 0;
    if (!d->enabled) rc = sh_kv_error(sh, KV_DISABLED, t->table);
    for (size_t i = 0; rc == 0 && i < t->nmap; i++) {
        if (t->map[i].kind != SH_MAP_CELL) continue;
        bool found = false;
        for (size_t j = 0; j < d->nfamilies && !found; j++)
            found = strcmp(d->families[j].name, t->map[i].family) == 0;
        if (!found) rc = sh_kv_error(sh, KV_NO_FAMILY, t->table);
    }
    kv_table_desc_free(d);
    return rc;
}

static void init_transfer(sh_transfer *t, cellsh *sh) {
    memset(t, 0, sizeof *t);
    t->sh = sh;
    t->separator = '\t';
    t->escaped = true;
    t->timestamp = KV_LATEST_TIMESTAMP;
}

int cmd_import(cellsh *sh, const sh_command *cmd) {
    static const char *const opts_allowed[] = { "FORMAT", "COLUMNS", "SEPARATOR", "HEADER",
                                                "TIMESTAMP", "ESCAPED", "SKIP_BAD_LINES", NULL };
    static const sh_value empty = { SH_HASH, NULL, 0, 0, NULL, 0 };
    sh_transfer t;
    init_transfer(&t, sh);
    if (sh_arg_name(sh, &cmd->args[0], "table name", &t.table) < 0 ||
        sh_arg_name(sh, &cmd->args[1], "file name", &t.path) < 0)
        return -1;
    const sh_value *opts = cmd->nargs > 2 ? &cmd->args[2] : &empty;
    if (opts->kind != SH_HASH) return sh_error(sh, "import options must be a hash");
    if (sh_hash_check(sh, opts, opts_allowed, "import") < 0) return -1;
    int fmt;
    if (read_format(sh, opts, t.path, &fmt) < 0 || read_tsv_options(sh, opts, fmt, &t) < 0)
        return -1;
    const sh_value *v;
    if ((v = sh_hash_get(opts, "TIMESTAMP"))) {
        if (sh_arg_int(sh, v, "TIMESTAMP", &t.timestamp) < 0) return -1;
        if (t.timestamp == KV_LATEST_TIMESTAMP)
            return sh_error(sh, "TIMESTAMP is out of range");
    }
    int rc = 0;
    if ((v = sh_hash_get(opts, "COLUMNS"))) {
        if (fmt == FMT_JSON) return sh_error(sh, "COLUMNS applies to TSV files only");
        const char *text;
        size_t len;
        if (columns_text(sh, v, &text, &len) < 0) return -1;
        rc = sh_transfer_parse_map(&t, text, len, true);
    }
    if (rc == 0) rc = check_table(&t);
    if (rc == 0) rc = fmt == FMT_TSV ? sh_tsv_import(&t) : sh_json_import(&t);
    if (rc == 0) {
        fprintf(sh->out, "Imported %" PRIu64 " row(s), %" PRIu64 " cell(s)", t.rows, t.cells);
        if (t.bad_lines) fprintf(sh->out, "; skipped %" PRIu64 " bad line(s)", t.bad_lines);
        fputc('\n', sh->out);
    }
    sh_transfer_free(&t);
    return rc;
}

int cmd_export(cellsh *sh, const sh_command *cmd) {
    static const sh_value empty = { SH_HASH, NULL, 0, 0, NULL, 0 };
    sh_transfer t;
    init_transfer(&t, sh);
    t.header = true;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &t.table) < 0 ||
        sh_arg_name(sh, &cmd->args[1], "file name", &t.path) < 0)
        return -1;
    const sh_value *opts = cmd->nargs > 2 ? &cmd->args[2] : &empty;
    if (opts->kind != SH_HASH) return sh_error(sh, "export options must be a hash");
    sh_read_spec spec;
    sh_read_spec_init(&spec, SH_READ_EXPORT);
    t.spec = &spec;
    int fmt = FMT_TSV, rc = 0;
    if (sh_read_spec_apply(sh, &spec, opts, SH_READ_EXPORT, "export") < 0 ||
        read_format(sh, opts, t.path, &fmt) < 0 || read_tsv_options(sh, opts, fmt, &t) < 0)
        rc = -1;
    if (rc == 0 && sh_hash_get(opts, "SKIP_BAD_LINES"))
        rc = sh_error(sh, "SKIP_BAD_LINES applies to import only");
    /* JSON keeps every version unless VERSIONS says otherwise. */
    if (rc == 0 && fmt == FMT_JSON && !sh_hash_get(opts, "VERSIONS"))
        spec.ropts.max_versions = INT32_MAX;
    const sh_value *v = sh_hash_get(opts, "COLUMNS");
    if (rc == 0 && v) {
        const char *text;
        size_t len;
        rc = columns_text(sh, v, &text, &len);
        if (rc == 0) rc = sh_transfer_parse_map(&t, text, len, false);
        /* read only the mapped columns */
        for (size_t i = 0; rc == 0 && i < t.nmap; i++) {
            if (t.map[i].kind != SH_MAP_CELL) continue;
            sh_value col = { SH_STR, NULL, 0, 0, NULL, 0 };
            size_t flen = strlen(t.map[i].family);
            col.len = flen + 1 + t.map[i].qualifier_len;
            col.str = sh_arena_alloc(sh->arena, col.len + 1);
            if (!col.str) { rc = sh_error(sh, "out of memory"); break; }
            memcpy(col.str, t.map[i].family, flen);
            col.str[flen] = ':';
            memcpy(col.str + flen + 1, t.map[i].qualifier, t.map[i].qualifier_len);
            rc = sh_read_spec_add_columns(sh, &spec, &col);
        }
        if (rc == 0 && fmt == FMT_JSON) {   /* JSON: a column selection only */
            for (size_t i = 0; i < t.nmap && rc == 0; i++)
                if (t.map[i].kind == SH_MAP_TS_KEY)
                    rc = sh_error(sh, "HBASE_TS_KEY applies to TSV files only");
        }
    }
    sh_read_spec_finish(&spec);
    if (rc == 0) rc = check_table(&t);
    FILE *out = NULL;
    char *tmp = NULL;
    if (rc == 0) {
        if (strcmp(t.path, "-") == 0) {
            out = sh->out;
        } else {
            /* Not mkstemp: the file should get the usual 0666 & ~umask mode. */
            size_t n = strlen(t.path) + 40;
            tmp = malloc(n);
            int fd = -1;
            for (unsigned attempt = 0; tmp && fd < 0 && attempt < 100; attempt++) {
                snprintf(tmp, n, "%s.tmp.%ld.%u", t.path, (long)getpid(), attempt);
                fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
                if (fd < 0 && errno != EEXIST) break;
            }
            if (fd >= 0) out = fdopen(fd, "w");
            if (!out) {
                rc = sh_error(sh, "cannot create %s: %s", t.path, strerror(errno));
                if (fd >= 0) {
                    close(fd);
                    unlink(tmp);
                }
            }
        }
    }
    if (rc == 0) rc = fmt == FMT_TSV ? sh_tsv_export(&t, out) : sh_json_export(&t, out);
    if (out && out != sh->out) {
        int werr = ferror(out);
        if (fflush(out) != 0 || fsync(fileno(out)) != 0) werr = 1;
        int saved = errno;
        if (fclose(out) != 0) werr = 1;
        if (rc == 0 && werr) rc = sh_error(sh, "cannot write %s: %s", t.path, strerror(saved));
        if (rc == 0 && rename(tmp, t.path) != 0)
            rc = sh_error(sh, "cannot rename %s to %s: %s", tmp, t.path, strerror(errno));
        if (rc != 0) unlink(tmp);
    }
    free(tmp);
    if (rc == 0) {
        FILE *summary = out == sh->out ? sh->err : sh->out;
        fflush(sh->out);   /* the data before the summary */
        fprintf(summary, "Exported %" PRIu64 " row(s), %" PRIu64 " cell(s)\n", t.rows, t.cells);
    }
    sh_read_spec_free(&spec);
    sh_transfer_free(&t);
    return rc;
}
