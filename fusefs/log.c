/**
 * @file log.c
 * The daemon's log: one line per bad input or failure, to stderr and, once
 * daemonized (stderr is /dev/null then), to syslog. Called from every
 * module and as kvcore's log sink.
 */
#include "fs.h"

#include <stdio.h>
#include <syslog.h>

/* One line each: control bytes but tabs (a name may hold a newline:
   stress-ng --filename makes such names) are shown as '?'. */
static void emit(cellfs *fs, int prio, char *text)
{
    for (unsigned char *c = (unsigned char *)text; *c; c++)
        if ((*c < 0x20 && *c != '\t') || *c == 0x7f) *c = '?';
    fprintf(stderr, "cellfs: %s\n", text);
    if (!fs || !fs->foreground) syslog(prio, "%s", text);
}

void fs_log(cellfs *fs, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    emit(fs, LOG_WARNING, line);
}

void fs_log_kv(void *ctx, int level, const char *message)
{
    char line[1024];
    snprintf(line, sizeof line, "store: %s", message);
    emit(ctx, level == KV_LOG_ERROR ? LOG_ERR : level == KV_LOG_WARN ? LOG_WARNING : LOG_INFO,
         line);
}
