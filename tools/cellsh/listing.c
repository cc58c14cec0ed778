/*
 * Name listings with Java-style patterns (see listing.h). Called by the
 * list commands; uses POSIX regcomp after translating Java's shorthand
 * classes, and convert.c's buffer.
 */
#include "listing.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "convert.h"
#include "output.h"

/* Java's \d \w \s as POSIX bracket contents. */
static const char *java_class(char c) {
    switch (c) {
    case 'd': case 'D': return "0-9";
    case 'w': case 'W': return "A-Za-z0-9_";
    case 's': case 'S': return "[:space:]";
    default: return NULL;
    }
}

/* Writes "^(PATTERN)$" in POSIX ERE terms to @p out. */
static int java_to_ere(sh_buf *out, const char *p, bool *icase, char *err, size_t errlen) {
    *icase = strncmp(p, "(?i)", 4) == 0;
    if (*icase) p += 4;
    bool in_class = false;
    sh_buf_puts(out, "^(");
    for (; *p; p++) {
        if (*p == '\\' && p[1]) {
            char e = *++p;
            const char *cls = java_class(e);
            bool negated = cls && e >= 'A' && e <= 'Z';
            if (in_class && negated) {
                snprintf(err, errlen, "\\%c inside [...] is not supported", e);
                return -1;
            }
            if (in_class) sh_buf_puts(out, cls ? cls : (char[]){ e, '\0' });
            else if (cls) sh_buf_printf(out, "[%s%s]", negated ? "^" : "", cls);
            else sh_buf_printf(out, "\\%c", e);
            continue;
        }
        if (*p == '[' && !in_class) in_class = true;
        else if (*p == ']' && in_class) in_class = false;
        sh_buf_put(out, p, 1);
    }
    sh_buf_puts(out, ")$");
    return 0;
}

int sh_name_filter(cellsh *sh, const sh_command *cmd, size_t i, regex_t *re, bool *have) {
    *have = false;
    if (cmd->nargs <= i) return 0;
    const char *pat;
    if (sh_arg_name(sh, &cmd->args[i], "pattern", &pat) < 0) return -1;
    sh_buf ere = { NULL, 0, 0, false };
    bool icase;
    char msg[256];
    if (java_to_ere(&ere, pat, &icase, msg, sizeof msg) < 0) {
        sh_buf_free(&ere);
        return sh_error(sh, "bad pattern '%s': %s", pat, msg);
    }
    if (ere.failed) {
        sh_buf_free(&ere);
        return sh_error(sh, "out of memory");
    }
    int e = regcomp(re, ere.p, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
    sh_buf_free(&ere);
    if (e != 0) {
        regerror(e, re, msg, sizeof msg);
        return sh_error(sh, "bad pattern '%s': %s", pat, msg);
    }
    *have = true;
    return 0;
}

int sh_print_name_list(cellsh *sh, const char *header, char **names, const regex_t *re,
                       bool strip) {
    fprintf(sh->out, "%s\n", header);
    uint64_t n = 0;
    for (size_t i = 0; names && names[i]; i++) {
        const char *name = names[i];
        if (strip) {
            const char *c = strchr(name, ':');
            if (c) name = c + 1;
        }
        if (re && regexec(re, names[i], 0, NULL, 0) != 0) continue;
        fprintf(sh->out, "%s\n", name);
        n++;
    }
    sh_footer_rows(sh, n);
    return 0;
}
