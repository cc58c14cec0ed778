/**
 * @file test_faults.c
 * Fault injection at every I/O call site (issue 11, "What to build" 3):
 * with the fault env (kvcore/util/env_fault.c), each operation of the
 * store — put, flush, compaction, each catalog change, and recovery (open)
 * — is run again and again on a copy of one store, failing the 1st, 2nd,
 * ... call of one kind of I/O (append, sync, sync_dir, rename, read_at,
 * open_append, open_read, remove, list, mkdir) until the operation no
 * longer reaches an n-th call. Each time:
 *  - a fired fault is reported to the caller as an error, or absorbed
 *    (counted: removal of an obsolete file may fail harmlessly);
 *  - nothing is half-changed: after an error the handle shows the old
 *    state (tables, families, every cell); after success the new one;
 *  - after the fault clears, close and reopen (plain POSIX env): the store
 *    opens, shows exactly what the handle showed, and every acknowledged
 *    write is present.
 * Prints a table of faults injected and outcomes per operation; any
 * failure fails the test. FAULTS_MAX_N (default 40) bounds n.
 */
#include "kvcore.h"
#include "util/env.h"
#include "testutil.h"

#include <stdarg.h>
#include <stdbool.h>
#include <unistd.h>

static const char *const ops[] = {
    "append", "sync", "sync_dir", "rename", "read_at", "open_append", "open_read", "remove",
    "list", "mkdir",
};
#define NOPS (sizeof ops / sizeof ops[0])

/* Calls of every operation whose name contains sub (as fail_nth matches). */
static uint64_t calls_matching(kv_fault_env *fe, const char *sub) {
    static const char *const all[] = {"open_read", "open_append", "read_at", "append", "sync",
                                      "size", "close", "rename", "remove", "sync_dir", "mkdir",
                                      "list", "lock", "unlock", "fs_space"};
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strstr(all[i], sub))
            n += kv_fault_env_calls(fe, all[i]);
    return n;
}

/* ---- the store's state as text ---- */

/* Every table, its families and every cell version: the whole visible
   state, or a line starting "ERROR" when it cannot be read. malloc'd. */
static char *fingerprint(kv_store *s) {
    test_text b = {0};
    char **nss = NULL;
    kv_status st = kv_namespace_list(&nss, s);
    if (st != KV_OK) {
        test_text_printf(&b, "ERROR namespaces: %s", kv_strerror(st));
        return b.p;
    }
    for (size_t i = 0; nss[i]; i++) {
        kv_property *props = NULL;
        size_t n = 0;
        test_text_printf(&b, "namespace %s\n", nss[i]);
        if (kv_namespace_describe(&props, &n, s, nss[i]) != KV_OK) {
            test_text_printf(&b, "ERROR describe namespace %s", nss[i]);
            continue;
        }
        for (size_t p = 0; p < n; p++)
            test_text_printf(&b, " property %s=%s\n", props[p].key, props[p].value);
        kv_free_properties(props, n);
    }
    kv_free_names(nss);
    char **tables = NULL;
    st = kv_table_list(&tables, s, NULL);
    if (st != KV_OK) {
        test_text_printf(&b, "ERROR list: %s", kv_strerror(st));
        return b.p;
    }
    for (size_t i = 0; tables[i]; i++) {
        kv_table_desc *d = NULL;
        st = kv_table_describe(&d, s, tables[i]);
        if (st != KV_OK) {
            test_text_printf(&b, "ERROR describe %s: %s", tables[i], kv_strerror(st));
            break;
        }
        test_text_printf(&b, "table %s enabled=%d\n", d->name, d->enabled);
        for (size_t f = 0; f < d->nfamilies; f++)
            test_text_printf(&b, " family %s versions=%d\n", d->families[f].name,
                      (int)d->families[f].versions);
        bool enabled = d->enabled;
        kv_table_desc_free(d);
        if (!enabled)
            continue;
        kv_read_options ro = KV_READ_OPTIONS_INIT;
        ro.max_versions = INT32_MAX;
        kv_scan *sc = NULL;
        st = kv_scan_open(&sc, s, tables[i], &ro);
        const kv_result *r;
        while (st == KV_OK && (st = kv_scan_next(&r, sc)) == KV_OK)
            for (size_t c = 0; c < r->ncells; c++) {
                const kv_cell *cl = &r->cells[c];
                test_text_add(&b, " ", 1);
                test_text_add(&b, cl->row, cl->row_len);
                test_text_printf(&b, "/%s:", cl->family);
                test_text_add(&b, cl->qualifier, cl->qualifier_len);
                test_text_printf(&b, "@%lld=", (long long)cl->timestamp);
                test_text_add(&b, cl->value, cl->value_len);
                test_text_add(&b, "\n", 1);
            }
        kv_scan_close(sc);
        if (st != KV_END) {
            test_text_printf(&b, "ERROR scan %s: %s %s", tables[i], kv_strerror(st), kv_store_errmsg(s));
            break;
        }
    }
    kv_free_names(tables);
    if (!b.p)
        test_text_add(&b, "", 0);
    return b.p;
}

/* Whether every line of want is a line of have. */
static bool contains_lines(const char *have, const char *want) {
    char *w = strdup(want);
    REQUIRE(w != NULL);
    bool ok = true;
    for (char *save = NULL, *line = strtok_r(w, "\n", &save); line && ok;
         line = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(line);
        const char *p = have;
        ok = false;
        while ((p = strstr(p, line)) != NULL) {
            if ((p == have || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0')) {
                ok = true;
                break;
            }
            p++;
        }
    }
    free(w);
    return ok;
}

/* ---- the operations ---- */

typedef enum { OP_PUT, OP_FLUSH, OP_COMPACT_MINOR, OP_COMPACT_MAJOR, OP_CREATE, OP_ALTER,
               OP_ADD_FAMILY, OP_DELETE_FAMILY, OP_DISABLE, OP_DROP, OP_TRUNCATE, OP_NS_CREATE,
               OP_NS_DROP, OP_ENABLE, OP_NS_PROPERTY, OP_OPEN, NKINDS } kind;
static const char *const kind_names[NKINDS] = {
    "put", "flush", "compact", "major compact", "create table", "alter family", "add family",
    "delete family", "disable", "drop table", "truncate", "create namespace", "drop namespace",
    "enable", "set property", "open (recovery)",
};
static kv_store *open_with(const char *dir, kv_env *env, kv_status *st, char *err, size_t errlen) {
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = env;
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.local = &lo;
    kv_store *s = NULL;
    *st = kv_store_open(&s, dir, &o, err, errlen);
    return s;
}

static kv_status put_row(kv_store *s, const char *row, const char *fam, int64_t ts, bool fsync) {
    kv_write_options wo = KV_WRITE_OPTIONS_INIT;
    wo.durability = fsync ? KV_FSYNC_WAL : KV_SYNC_WAL;
    char val[64];
    int n = snprintf(val, sizeof val, "value of %s %lld", row, (long long)ts);
    return kv_put(s, "t", row, strlen(row), fam, "q", 1, ts, val, (size_t)n, &wo);
}

/* The template: table t (f, g), table u (f), namespace ns1 with table
   ns1:v, 60 rows flushed into two files per family, closed. */
static void make_template(const char *dir) {
    kv_status st;
    char err[512];
    kv_store *s = open_with(dir, NULL, &st, err, sizeof err);
    REQUIRE(st == KV_OK);
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "f");
    snprintf(f[1].name, sizeof f[1].name, "g");
    f[1].versions = 3;
    REQUIRE(kv_table_create(s, "t", f, 2) == KV_OK);
    REQUIRE(kv_table_create(s, "u", f, 1) == KV_OK);
    REQUIRE(kv_namespace_create(s, "ns1") == KV_OK);
    REQUIRE(kv_table_create(s, "ns1:v", f, 1) == KV_OK);
    for (int half = 0; half < 2; half++) {
        for (int i = 0; i < 30; i++) {
            char row[16];
            snprintf(row, sizeof row, "r%03d", half * 30 + i);
            REQUIRE(put_row(s, row, "f", 100 + half, false) == KV_OK);
            REQUIRE(put_row(s, row, "g", 100 + half, false) == KV_OK);
        }
        REQUIRE(kv_put(s, "u", "x", 1, "f", "q", 1, 5, "u-value", 7, NULL) == KV_OK);
        REQUIRE(kv_flush(s, NULL) == KV_OK);
    }
    REQUIRE(kv_store_close(s) == KV_OK);
}

/* The steps before operation k that are not under test (run without a
   fault, so that "before" is the state the operation starts from). */
static void prepare_op(kind k, kv_store *s) {
    if (k == OP_DROP || k == OP_ENABLE)
        REQUIRE(kv_table_disable(s, "u") == KV_OK);
    if (k == OP_NS_DROP) {
        REQUIRE(kv_table_disable(s, "ns1:v") == KV_OK);
        REQUIRE(kv_table_drop(s, "ns1:v") == KV_OK);
    }
}

/* Runs operation k on s; returns its status. */
static kv_status run_op(kind k, kv_store *s) {
    kv_family_desc fd = KV_FAMILY_DESC_INIT;
    switch (k) {
    case OP_PUT: {
        kv_status st = KV_OK;
        for (int i = 0; i < 8 && st == KV_OK; i++) {
            char row[16];
            snprintf(row, sizeof row, "p%03d", i);
            st = put_row(s, row, i % 2 ? "g" : "f", 300, i % 3 == 0);
        }
        return st;
    }
    case OP_FLUSH: return kv_flush(s, NULL);
    case OP_COMPACT_MINOR: return kv_compact(s, "t", false);
    case OP_COMPACT_MAJOR: return kv_compact(s, "t", true);
    case OP_CREATE:
        snprintf(fd.name, sizeof fd.name, "h");
        return kv_table_create(s, "t2", &fd, 1);
    case OP_ALTER:
        snprintf(fd.name, sizeof fd.name, "g");
        fd.versions = 5;
        return kv_table_alter_family(s, "t", &fd);
    case OP_ADD_FAMILY:
        snprintf(fd.name, sizeof fd.name, "h");
        return kv_table_alter_family(s, "t", &fd);
    case OP_DELETE_FAMILY: return kv_table_delete_family(s, "t", "g");
    case OP_DISABLE: return kv_table_disable(s, "u");
    case OP_DROP: return kv_table_drop(s, "u");
    case OP_TRUNCATE: return kv_table_truncate(s, "t", false);
    case OP_NS_CREATE: return kv_namespace_create(s, "ns2");
    case OP_NS_DROP: return kv_namespace_drop(s, "ns1");
    case OP_ENABLE: return kv_table_enable(s, "u");
    case OP_NS_PROPERTY: return kv_namespace_set_property(s, "ns1", "owner", "robust");
    default: return KV_INVALID;
    }
}

typedef struct tally {
    unsigned injected, errors, absorbed, failed;
} tally;

static void copy_dir(const char *from, const char *to) {
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", to, from, to);
    REQUIRE(n > 0 && (size_t)n < sizeof cmd);
    REQUIRE(system(cmd) == 0);
}

/* One run: kind k, the n-th call of op fails. Returns false when the fault
   did not fire (n is past the operation's last such call). */
static bool one_run(const char *tmpl, const char *dir, kind k, const char *op, int n, tally *t) {
    copy_dir(tmpl, dir);
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe != NULL);
    kv_status st;
    char err[512];
    kv_store *s = NULL;
    char *before = NULL, *live = NULL;
    bool fired;
    const char *problem = NULL;
    char why[1024] = "";
    char said[512] = "";   /* the failing call's message */

    if (k == OP_OPEN) {
        /* Recovery: the template plus a log to replay. */
        s = open_with(dir, NULL, &st, err, sizeof err);
        REQUIRE(st == KV_OK);
        for (int i = 0; i < 10; i++) {
            char row[16];
            snprintf(row, sizeof row, "l%03d", i);
            REQUIRE(put_row(s, row, "f", 200, false) == KV_OK);
        }
        before = fingerprint(s);
        /* A copy taken while the log is unflushed is the store a crash
           leaves (SYNC_WAL: the records are in the files). */
        char crashed[1100];
        snprintf(crashed, sizeof crashed, "%s.crash", dir);
        copy_dir(dir, crashed);
        kv_store_close(s);
        copy_dir(crashed, dir);
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", crashed);
        REQUIRE(system(cmd) == 0);
        s = NULL;
        uint64_t c0 = calls_matching(fe, op);
        kv_fault_env_fail_nth(fe, op, n);
        s = open_with(dir, kv_fault_env_env(fe), &st, err, sizeof err);
        fired = calls_matching(fe, op) - c0 >= (uint64_t)n;
        kv_fault_env_fail_nth(fe, NULL, 0);
        if (fired) {
            t->injected++;
            if (st != KV_OK) {
                t->errors++;
                if (s)
                    problem = "a failed open returned a handle";
            } else {
                t->absorbed++;
                live = fingerprint(s);
                if (strcmp(live, before) != 0) {
                    /* A sorted file that cannot be read at open is kept
                       broken (issue 11 defect 6): the store opens and the
                       reads that need the file fail naming it. After the
                       fault clears, a reopen must show the whole state. */
                    if (strstr(live, "ERROR scan") && strstr(live, ".sst")) {
                        free(live);
                        live = NULL;
                    } else {
                        snprintf(why, sizeof why, "the open succeeded but shows another state: %.300s", live);
                        problem = why;
                    }
                }
            }
        }
    } else {
        s = open_with(dir, kv_fault_env_env(fe), &st, err, sizeof err);
        REQUIRE(st == KV_OK);
        /* Acknowledged, unflushed cells for every operation to carry. */
        for (int i = 0; i < 4; i++) {
            char row[16];
            snprintf(row, sizeof row, "m%03d", i);
            REQUIRE(put_row(s, row, "f", 250, false) == KV_OK);
        }
        prepare_op(k, s);
        before = fingerprint(s);
        uint64_t c0 = calls_matching(fe, op);
        kv_fault_env_fail_nth(fe, op, n);
        st = run_op(k, s);
        snprintf(said, sizeof said, "%s", st == KV_OK ? "" : kv_store_errmsg(s));
        fired = calls_matching(fe, op) - c0 >= (uint64_t)n;
        kv_fault_env_fail_nth(fe, NULL, 0);
        if (fired) {
            t->injected++;
            live = fingerprint(s);
            if (st != KV_OK) {
                t->errors++;
                /* A put that failed part-way keeps the rows acknowledged
                   before it: compare what was there before only. */
                if (k != OP_PUT && strcmp(live, before) != 0)
                    problem = "failed, but the handle shows a changed state";
                else if (k == OP_PUT && !contains_lines(live, before))
                    problem = "a failed put lost cells acknowledged before it";
            } else {
                t->absorbed++;
            }
        }
    }

    if (fired && !problem) {
        /* Clear the fault, close, reopen plainly: the same state. */
        char *expect = live ? live : before;
        kv_status cst = s ? kv_store_close(s) : KV_OK;
        s = NULL;
        (void)cst;   /* a close may report the earlier failure */
        kv_store *r = open_with(dir, NULL, &st, err, sizeof err);
        if (st != KV_OK) {
            snprintf(why, sizeof why, "the store does not reopen: %s: %s", kv_strerror(st), err);
            problem = why;
        } else {
            char *after = fingerprint(r);
            if (strcmp(after, expect) != 0) {
                /* A failed put may or may not have logged its last row. */
                bool ok = k == OP_PUT && !strstr(after, "ERROR") && contains_lines(after, expect);
                if (!ok) {
                    const char *e = strstr(after, "ERROR");
                    snprintf(why, sizeof why, "after reopen the store shows another state%s%.300s",
                             e ? ": " : "", e ? e : "");
                    problem = why;
                }
            }
            free(after);
            kv_store_close(r);
        }
    } else if (s) {
        kv_store_close(s);
    }
    if (problem) {
        t->failed++;
        test_checks_failed++;
        fprintf(stderr, "FAILED %s, %s #%d fails: %s [%s]\n", kind_names[k], op, n, problem, said);
    }
    test_checks_run++;
    free(before);
    free(live);
    kv_fault_env_free(fe);
    return fired;
}

int main(void) {
    const char *maxenv = getenv("FAULTS_MAX_N");
    int max_n = maxenv ? atoi(maxenv) : 40;
    char *base = test_tmpdir("faults");
    char tmpl[600], dir[600];
    snprintf(tmpl, sizeof tmpl, "%s/template", base);
    snprintf(dir, sizeof dir, "%s/store", base);
    make_template(tmpl);
    tally total = {0};
    printf("%-18s %-12s %8s %8s %8s %8s\n", "operation", "fault", "injected", "error", "absorbed",
           "FAILED");
    for (int k = 0; k < NKINDS; k++) {
        for (size_t o = 0; o < NOPS; o++) {
            tally t = {0};
            for (int n = 1; n <= max_n; n++)
                if (!one_run(tmpl, dir, (kind)k, ops[o], n, &t))
                    break;
            if (t.injected)
                printf("%-18s %-12s %8u %8u %8u %8u\n", kind_names[k], ops[o], t.injected,
                       t.errors, t.absorbed, t.failed);
            total.injected += t.injected;
            total.errors += t.errors;
            total.absorbed += t.absorbed;
            total.failed += t.failed;
        }
    }
    printf("%-18s %-12s %8u %8u %8u %8u\n", "total", "", total.injected, total.errors,
           total.absorbed, total.failed);
    test_rmtree(base);
    free(base);
    return test_finish("test_faults");
}
