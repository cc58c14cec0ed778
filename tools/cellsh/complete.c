/*
 * Readline completion (see complete.h). readline's callbacks take no
 * context, so the shell being completed and the candidates of the current
 * completion are kept in this file's statics — readline's own state is
 * process-wide in the same way, and a cellsh process owns one store. Reads
 * the command table (commands.c) and the catalog (kv_table_list,
 * kv_namespace_list, kv_table_describe).
 */
#include "complete.h"

#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"

static cellsh *completing;     /* the shell whose store is completed */
static char **candidates;      /* this completion's words, NULL-terminated */
static size_t next_candidate;  /* the generator's position in them */

/* What the word under the cursor is. */
enum want { WANT_NOTHING, WANT_COMMAND, WANT_TABLE, WANT_NAMESPACE, WANT_COLUMN, WANT_FAMILY };

static bool in_list(const char *word, const char *const *list) {
    for (; *list; list++)
        if (strcmp(word, *list) == 0) return true;
    return false;
}

/* Commands whose first argument is a table or a namespace. */
static const char *const table_first[] = {
    "alter", "describe", "desc", "exists", "enable", "disable", "is_enabled", "is_disabled",
    "drop", "truncate", "truncate_preserve", "flush", "compact", "major_compact", "put", "get",
    "scan", "count", "delete", "deleteall", "incr", "get_counter", "append", "import", "export",
    "alter_async", "alter_status", "clone_table_schema", "get_table", "list_regions",
    "locate_region", "get_splits", "split", "snapshot", "compaction_state", NULL,
};
static const char *const namespace_first[] = {
    "drop_namespace", "alter_namespace", "describe_namespace", "list_namespace_tables", NULL,
};
/* Commands whose third argument is a column, and those whose second is a
 * family. */
static const char *const column_third[] = {
    "put", "get", "delete", "deleteall", "incr", "get_counter", "append", NULL,
};
static const char *const family_second[] = { "flush", "compact", "major_compact", NULL };

/*
 * Reads the statement that ends at @p start (the word being completed
 * begins there): its command, how many arguments come before the word, the
 * first argument's text and the last hash key. Only words inside quotes are
 * names; a word outside them is a command at the start of a statement.
 */
static enum want analyse(const char *line, int start, char *table, size_t tablelen) {
    /* the current statement starts after the last ';' outside quotes */
    int from = 0;
    char quote = 0;
    for (int i = 0; i < start; i++) {
        if (quote) {
            if (line[i] == '\\' && i + 1 < start) i++;
            else if (line[i] == quote) quote = 0;
        } else if (line[i] == '\'' || line[i] == '"') {
            quote = line[i];
        } else if (line[i] == ';') {
            from = i + 1;
        }
    }
    int i = from;
    while (i < start && (line[i] == ' ' || line[i] == '\t')) i++;
    int w = i;
    while (i < start && (line[i] == '_' || (line[i] >= 'a' && line[i] <= 'z'))) i++;
    if (i == start) return quote ? WANT_NOTHING : WANT_COMMAND;
    char cmd[32];
    snprintf(cmd, sizeof cmd, "%.*s", i - w, line + w);
    /* the arguments before the word */
    int argc = 0, depth = 0;
    char key[32] = "", word[64] = "";
    size_t wl = 0;
    bool first_done = false;
    table[0] = '\0';
    quote = 0;
    for (; i < start; i++) {
        char c = line[i];
        if (quote) {
            if (c == '\\' && i + 1 < start) {
                i++;
            } else if (c == quote) {
                quote = 0;
                if (argc == 0 && depth == 0 && !first_done) {
                    snprintf(table, tablelen, "%.*s", (int)wl, word);
                    first_done = true;
                }
            } else if (wl + 1 < sizeof word) {
                word[wl++] = c;
            }
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            wl = 0;
        } else if (c == '[' || c == '{' || (c == '(' && argc > 0)) {
            depth++;
        } else if (c == ']' || c == '}' || c == ')') {
            depth--;
        } else if (c == ',' && depth == 0) {
            argc++;
        } else if (c == '=' && i + 1 < start && line[i + 1] == '>') {
            snprintf(key, sizeof key, "%.*s", (int)wl, word);
            i++;
        } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') {
            int k = i;
            while (k < start && ((line[k] >= 'A' && line[k] <= 'Z') ||
                                 (line[k] >= 'a' && line[k] <= 'z') || line[k] == '_'))
                k++;
            wl = (size_t)(k - i) < sizeof word - 1 ? (size_t)(k - i) : sizeof word - 1;
            memcpy(word, line + i, wl);
            i = k - 1;
        }
    }
    if (!quote) return WANT_NOTHING;
    if (strcmp(cmd, "help") == 0 && argc == 0) return WANT_COMMAND;
    if (argc == 0 && depth == 0) {
        if (in_list(cmd, table_first)) return WANT_TABLE;
        if (in_list(cmd, namespace_first)) return WANT_NAMESPACE;
        return WANT_NOTHING;
    }
    if (!table[0]) return WANT_NOTHING;
    if (depth == 0 && argc == 2 && in_list(cmd, column_third)) return WANT_COLUMN;
    if (depth == 0 && argc == 1 && in_list(cmd, family_second)) return WANT_FAMILY;
    if (depth > 0 && (strcasecmp(key, "COLUMN") == 0 || strcasecmp(key, "COLUMNS") == 0))
        return WANT_COLUMN;
    if (strcmp(cmd, "alter") == 0 && (strcmp(key, "NAME") == 0 || strcmp(key, "delete") == 0))
        return WANT_FAMILY;
    return WANT_NOTHING;
}

static void drop_candidates(void) {
    for (size_t i = 0; candidates && candidates[i]; i++) free(candidates[i]);
    free(candidates);
    candidates = NULL;
    next_candidate = 0;
}

/* Copies a NULL-terminated list (or the command names when @p names is
 * NULL), each word followed by @p suffix. */
static void set_candidates(char **names, const char *suffix) {
    size_t n = 0, ncmd = 0;
    const sh_command_def *cmds = NULL;
    if (names) {
        while (names[n]) n++;
    } else {
        cmds = sh_command_table(&ncmd);
        n = ncmd;
    }
    candidates = calloc(n + 1, sizeof *candidates);
    for (size_t i = 0; candidates && i < n; i++) {
        const char *w = names ? names[i] : cmds[i].name;
        size_t len = strlen(w) + strlen(suffix) + 1;
        candidates[i] = malloc(len);
        if (candidates[i]) snprintf(candidates[i], len, "%s%s", w, suffix);
    }
}

static void set_families(const char *table, const char *suffix) {
    kv_table_desc *d = NULL;
    if (kv_table_describe(&d, completing->store, table) != KV_OK) return;
    char **names = calloc(d->nfamilies + 1, sizeof *names);
    for (size_t i = 0; names && i < d->nfamilies; i++) names[i] = d->families[i].name;
    if (names) set_candidates(names, suffix);
    free(names);
    kv_table_desc_free(d);
}

static char *generate(const char *text, int state) {
    (void)state;
    size_t len = strlen(text);
    while (candidates && candidates[next_candidate]) {
        const char *c = candidates[next_candidate++];
        if (strncmp(c, text, len) == 0) return strdup(c);
    }
    return NULL;
}

static char **complete(const char *text, int start, int end) {
    (void)end;
    rl_attempted_completion_over = 1;   /* never fall back to file names */
    drop_candidates();
    char table[2 * KV_NAME_MAX + 2];
    enum want want = analyse(rl_line_buffer, start, table, sizeof table);
    char **names = NULL;
    /* names end at the closing quote; a family goes on with its qualifier */
    rl_completion_suppress_quote = want == WANT_COLUMN;
    rl_completion_append_character = want == WANT_COMMAND && !rl_completion_quote_character
                                         ? ' ' : '\0';
    switch (want) {
    case WANT_COMMAND: set_candidates(NULL, ""); break;
    case WANT_TABLE:
        if (kv_table_list(&names, completing->store, NULL) == KV_OK) set_candidates(names, "");
        break;
    case WANT_NAMESPACE:
        if (kv_namespace_list(&names, completing->store) == KV_OK) set_candidates(names, "");
        break;
    case WANT_COLUMN: set_families(table, ":"); break;
    case WANT_FAMILY: set_families(table, ""); break;
    case WANT_NOTHING: break;
    }
    kv_free_names(names);
    if (!candidates) return NULL;
    return rl_completion_matches(text, generate);
}

void sh_complete_install(cellsh *sh) {
    completing = sh;
    rl_attempted_completion_function = complete;
    rl_completer_quote_characters = "'\"";
    rl_completer_word_break_characters = " \t\n,;()[]{}=>";
}
