/*
 * Namespace commands: create_namespace, drop_namespace, alter_namespace,
 * describe_namespace, list_namespace, list_namespace_tables. Calls the
 * kv_namespace_* catalog functions.
 */
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "commands.h"
#include "listing.h"
#include "output.h"

/* Sets every KEY => 'value' pair of a properties hash (skipping @p skip). */
static int set_properties(cellsh *sh, const char *ns, const sh_value *h, const char *skip) {
    for (size_t i = 0; i < h->n; i++) {
        char key[256], value[4096];
        if (sh_value_text(sh, &h->items[2 * i], "a property name", key, sizeof key) < 0 ||
            sh_value_text(sh, &h->items[2 * i + 1], key, value, sizeof value) < 0)
            return -1;
        if (skip && strcasecmp(key, skip) == 0) continue;
        kv_status st = kv_namespace_set_property(sh->store, ns, key, value);
        if (st != KV_OK) return sh_ns_error(sh, st, ns);
    }
    return 0;
}

int cmd_create_namespace(cellsh *sh, const sh_command *cmd) {
    const char *ns;
    if (sh_arg_name(sh, &cmd->args[0], "namespace name", &ns) < 0) return -1;
    if (cmd->nargs > 1 && cmd->args[1].kind != SH_HASH)
        return sh_error(sh, "namespace properties must be a hash {'KEY' => 'value'}");
    if (cmd->nargs > 1)   /* check every property before creating anything */
        for (size_t i = 0; i < cmd->args[1].n * 2; i++) {
            char buf[4096];
            if (sh_value_text(sh, &cmd->args[1].items[i], "a property", buf, sizeof buf) < 0)
                return -1;
        }
    kv_status st = kv_namespace_create(sh->store, ns);
    if (st != KV_OK) return sh_ns_error(sh, st, ns);
    if (cmd->nargs > 1 && set_properties(sh, ns, &cmd->args[1], NULL) < 0) return -1;
    return 0;
}

int cmd_drop_namespace(cellsh *sh, const sh_command *cmd) {
    const char *ns;
    if (sh_arg_name(sh, &cmd->args[0], "namespace name", &ns) < 0) return -1;
    kv_status st = kv_namespace_drop(sh->store, ns);
    if (st != KV_OK) {
        if (st == KV_INVALID && (strcmp(ns, "default") == 0 || strcmp(ns, "hbase") == 0))
            return sh_error(sh, "Reserved namespace %s cannot be removed.", ns);
        return sh_ns_error(sh, st, ns);
    }
    return 0;
}

/* alter_namespace 'ns', {METHOD => 'set', 'K' => 'V'} or
 * {METHOD => 'unset', NAME => 'K'} */
int cmd_alter_namespace(cellsh *sh, const sh_command *cmd) {
    const char *ns;
    if (sh_arg_name(sh, &cmd->args[0], "namespace name", &ns) < 0) return -1;
    const sh_value *h = &cmd->args[1];
    if (h->kind != SH_HASH) return sh_error(sh, "alter_namespace needs a hash {METHOD => ...}");
    const sh_value *method = sh_hash_get(h, "METHOD");
    if (!method) return sh_error(sh, "METHOD must be 'set' or 'unset'");
    if (sh_value_is(method, "set")) {
        for (size_t i = 0; i < h->n * 2; i++) {   /* check all before setting any */
            char buf[4096];
            if (sh_value_text(sh, &h->items[i], "a property", buf, sizeof buf) < 0) return -1;
        }
        if (set_properties(sh, ns, h, "METHOD") < 0) return -1;
    } else if (sh_value_is(method, "unset")) {
        const sh_value *name = sh_hash_get(h, "NAME");
        char key[256];
        if (!name) return sh_error(sh, "unset needs NAME => 'PROPERTY_NAME'");
        if (sh_value_text(sh, name, "NAME", key, sizeof key) < 0) return -1;
        kv_status st = kv_namespace_set_property(sh->store, ns, key, NULL);
        if (st != KV_OK) return sh_ns_error(sh, st, ns);
    } else {
        return sh_error(sh, "METHOD must be 'set' or 'unset'");
    }
    return 0;
}

int cmd_describe_namespace(cellsh *sh, const sh_command *cmd) {
    const char *ns;
    if (sh_arg_name(sh, &cmd->args[0], "namespace name", &ns) < 0) return -1;
    kv_property *props = NULL;
    size_t n = 0;
    kv_status st = kv_namespace_describe(&props, &n, sh->store, ns);
    if (st != KV_OK) return sh_ns_error(sh, st, ns);
    fprintf(sh->out, "DESCRIPTION\n{NAME => '%s'", ns);
    for (size_t i = 0; i < n; i++) fprintf(sh->out, ", %s => '%s'", props[i].key, props[i].value);
    fprintf(sh->out, "}\n");
    kv_free_properties(props, n);
    sh_footer_rows(sh, 1);
    return 0;
}

int cmd_list_namespace(cellsh *sh, const sh_command *cmd) {
    regex_t re;
    bool have_re;
    if (sh_name_filter(sh, cmd, 0, &re, &have_re) < 0) return -1;
    char **names = NULL;
    kv_status st = kv_namespace_list(&names, sh->store);
    int rc = st == KV_OK ? sh_print_name_list(sh, "NAMESPACE", names, have_re ? &re : NULL, false)
                         : sh_kv_error(sh, st, NULL);
    kv_free_names(names);
    if (have_re) regfree(&re);
    return rc;
}

int cmd_list_namespace_tables(cellsh *sh, const sh_command *cmd) {
    const char *ns;
    if (sh_arg_name(sh, &cmd->args[0], "namespace name", &ns) < 0) return -1;
    kv_property *props = NULL;
    size_t n = 0;
    kv_status st = kv_namespace_describe(&props, &n, sh->store, ns);
    if (st != KV_OK) return sh_ns_error(sh, st, ns);
    kv_free_properties(props, n);
    char **names = NULL;
    st = kv_table_list(&names, sh->store, ns);
    int rc = st == KV_OK ? sh_print_name_list(sh, "TABLE", names, NULL, true)
                         : sh_ns_error(sh, st, ns);
    kv_free_names(names);
    return rc;
}
